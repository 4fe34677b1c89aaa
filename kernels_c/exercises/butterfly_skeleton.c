/*
 * butterfly_skeleton.c -- EXERCISE: write allreduce (sum of doubles) as a butterfly
 * (recursive doubling), for any number of ranks.
 *
 * Fill in my_allreduce below; everything else (options, timing, checking your answer against
 * MPI_Allreduce on every rank, for every size, and counting your messages) is the harness.
 * Check it from the book:
 *     commbook.exercises.check_exercise("kernels_c/exercises/butterfly_skeleton.c")
 * which compiles this file and runs it for P = 1 .. 8, or by hand:
 *     mpicc -DCB_STANDALONE -I kernels_c -I kernels_c/exercises \
 *           kernels_c/exercises/butterfly_skeleton.c kernels_c/collectives_algos.c -o bfly
 *     mpiexec -n 6 ./bfly --algorithm mine --sizes 0,8,56,1M
 *
 * The idea (F. Rappl's homework): with P = 2^k ranks, in each of k steps every rank exchanges
 * its partial sum with the rank whose number differs from its own in one bit, and adds what
 * it receives; after k steps every rank holds the total. When P is not a power of two, some
 * ranks must first hand their contribution to a partner and receive the result at the end:
 * which ones, and how the others renumber themselves, is part of the exercise.
 *
 * Rules: MPI_Send, MPI_Recv, MPI_Sendrecv and MPI_Isend/MPI_Irecv only (MPI_Sendrecv avoids
 * the deadlock of two blocking sends facing each other); no MPI collective and none of the
 * package's own allreduce algorithms (they do not build); every message is counted and must be
 * a butterfly's. Do not modify sendbuf.
 */
#include "butterfly_harness.h"

static void my_allreduce(const double *sendbuf, double *recvbuf, int count, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);

    /* start from this rank's own contribution */
    for (int i = 0; i < count; i++) recvbuf[i] = sendbuf[i];

    /* TODO: the butterfly, for any P (what a partner sends needs a buffer of its own) */

    (void)rank;
    (void)P;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_allreduce_main(ctx, "butterfly_exercise", bx_counted_allreduce);
}
