/*
 * butterfly_harness.h -- the rules of the butterfly allreduce exercise
 * (kernels_c/exercises/butterfly_skeleton.c).
 *
 * The reader writes my_allreduce; the allreduce kernel's harness (collectives_algos.c) checks
 * its result against MPI_Allreduce on every rank. This header adds what makes it a butterfly:
 *
 *   - the library's collectives and the package's own allreduce algorithms do not build
 *     (a name saying the rule takes their place);
 *   - every message the reader's code sends is counted (MPI_Send, MPI_Sendrecv, MPI_Isend, ...),
 *     and at the first call for each size the counts must be a butterfly's: with p2 the largest
 *     power of two <= P and rem = P - p2, p2*log2(p2) + 2*rem messages in all, at most
 *     log2(p2) + 1 from any rank. A linear or tree algorithm sends other counts and fails.
 */
#ifndef BUTTERFLY_HARNESS_H
#define BUTTERFLY_HARNESS_H

#include "collectives_algos.h"

static long long bx_sent; /* messages this rank sent inside my_allreduce */

CB_API int bx_send(const void *b, int c, MPI_Datatype t, int d, int g, MPI_Comm m)
{ bx_sent++; return PMPI_Send(b, c, t, d, g, m); }
CB_API int bx_ssend(const void *b, int c, MPI_Datatype t, int d, int g, MPI_Comm m)
{ bx_sent++; return PMPI_Ssend(b, c, t, d, g, m); }
CB_API int bx_isend(const void *b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request *r)
{ bx_sent++; return PMPI_Isend(b, c, t, d, g, m, r); }
CB_API int bx_sendrecv(const void *sb, int sc, MPI_Datatype st, int d, int sg, void *rb, int rc,
                       MPI_Datatype rt, int s, int rg, MPI_Comm m, MPI_Status *status)
{ bx_sent++; return PMPI_Sendrecv(sb, sc, st, d, sg, rb, rc, rt, s, rg, m, status); }

static void my_allreduce(const double *sendbuf, double *recvbuf, int count, MPI_Comm comm);

/* The reader's allreduce with its messages counted; a wrong count fails the run loudly. */
static void bx_counted_allreduce(const double *s, double *r, int count, MPI_Comm comm)
{
    static int checked_count = -1;
    bx_sent = 0;
    my_allreduce(s, r, count, comm);
    if (count == 0 || count == checked_count) return; /* counted at the first call of each size */
    checked_count = count;
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    long long total = 0, most = 0;
    PMPI_Allreduce(&bx_sent, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
    PMPI_Allreduce(&bx_sent, &most, 1, MPI_LONG_LONG, MPI_MAX, comm);
    int p2 = cc_pof2_floor(P), rem = P - p2, k = 0;
    while ((1 << k) < p2) k++;
    long long want_total = (long long)p2 * k + 2LL * rem, want_most = k + (rem > 0);
    if (total != want_total || most > want_most) {
        if (rank == 0)
            fprintf(stderr, "commbook kernel: rank 0: NOT A BUTTERFLY: %d ranks sent %lld messages "
                    "(at most %lld from one rank); a butterfly on %d ranks sends %lld (at most "
                    "%lld from one rank)\n", P, total, most, P, want_total, want_most);
        for (int i = 0; i < count; i++) r[i] = -1.0; /* and the result check fails */
    }
}

#define MPI_Send bx_send
#define MPI_Ssend bx_ssend
#define MPI_Isend bx_isend
#define MPI_Sendrecv bx_sendrecv
#define MPI_Allreduce this_exercise_asks_for_your_own_allreduce
#define PMPI_Allreduce this_exercise_asks_for_your_own_allreduce
#define MPI_Reduce this_exercise_asks_for_your_own_allreduce
#define MPI_Bcast this_exercise_asks_for_your_own_allreduce
#define MPI_Reduce_scatter this_exercise_asks_for_your_own_allreduce
#define MPI_Reduce_scatter_block this_exercise_asks_for_your_own_allreduce
#define MPI_Allgather this_exercise_asks_for_your_own_allreduce
#define MPI_Bsend this_exercise_allows_MPI_Send_MPI_Sendrecv_and_MPI_Isend
#define MPI_Rsend this_exercise_allows_MPI_Send_MPI_Sendrecv_and_MPI_Isend
#define MPI_Sendrecv_replace this_exercise_allows_MPI_Send_MPI_Sendrecv_and_MPI_Isend
#define cc_allreduce_butterfly this_exercise_asks_for_your_own_butterfly
#define cc_allreduce_ring this_exercise_asks_for_your_own_butterfly
#define cc_allreduce_rabenseifner this_exercise_asks_for_your_own_butterfly
#define cc_fold_in this_exercise_asks_for_your_own_butterfly
#define cc_fold_out this_exercise_asks_for_your_own_butterfly
#define cc_allreduce_start this_exercise_asks_for_your_own_butterfly

#endif /* BUTTERFLY_HARNESS_H */
