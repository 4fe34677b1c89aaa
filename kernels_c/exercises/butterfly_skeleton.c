/*
 * butterfly_skeleton.c -- EXERCISE: write allreduce (sum of doubles) as a butterfly
 * (recursive doubling), for any number of ranks.
 *
 * Fill in my_allreduce below; everything else (options, timing, checking your answer against
 * MPI_Allreduce on every rank, for every size) is the harness the real kernel uses.  Check it
 * from the book:
 *     commbook.collectives.check_exercise("kernels_c/exercises/butterfly_skeleton.c")
 * which compiles this file and runs it for P = 1 .. 8, or by hand:
 *     mpicc -DCB_STANDALONE -I kernels_c kernels_c/exercises/butterfly_skeleton.c -o bfly
 *     mpiexec -n 6 ./bfly --algorithm mine,library --sizes 0,8,56,1M
 *
 * The idea (seeds/004): with P = 2^k ranks, in step s = 1..k every rank exchanges its partial
 * sum with the rank whose number differs in one bit (partner = rank ^ mask) and adds what it
 * receives; after k steps every rank holds the total.  Low-to-high order uses mask = 1, 2, 4,
 * ...; high-to-low uses mask = P/2, ..., 1.
 *
 * When P is not a power of two: let p2 be the largest power of two <= P and rem = P - p2.
 *   1. fold in:  among ranks 0 .. 2*rem-1, each even rank sends its vector to rank+1 and
 *                sits out; the odd rank adds it and plays "rank/2" in the butterfly.
 *                Ranks >= 2*rem play "rank - rem".
 *   2. butterfly among the p2 players (translate a partner's player number q back to a real
 *                rank: q < rem ? 2*q + 1 : q + rem).
 *   3. fold out: each odd rank below 2*rem sends the result to rank-1.
 *
 * Use MPI_Sendrecv for the exchange (two blocking MPI_Send calls facing each other can
 * deadlock for large messages).  Do not modify sendbuf.
 */
#include "collectives_algos.h"

static void my_allreduce(const double *sendbuf, double *recvbuf, int count, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    double *tmp = malloc((size_t)(count > 0 ? count : 1) * sizeof(double));

    /* start from this rank's own contribution */
    for (int i = 0; i < count; i++) recvbuf[i] = sendbuf[i];

    /* TODO 1: fold in the ranks beyond the largest power of two */

    /* TODO 2: the butterfly: for each mask, MPI_Sendrecv recvbuf with the partner into tmp,
     *         then recvbuf[i] += tmp[i] */

    /* TODO 3: fold the result back out to the ranks that sat out */

    (void)P;
    free(tmp);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_allreduce_main(ctx, "butterfly_exercise", my_allreduce);
}
