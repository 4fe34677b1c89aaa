/*
 * gather_skeleton.c -- EXERCISE: a binomial-tree gather with MPI_Send / MPI_Recv.
 *
 * my_gather must leave, on the root, the n bytes of every rank r at recvbuf + r*n (what
 * MPI_Gather does), for any P and any root. The harness compares your result with
 * MPI_Gather for several sizes and roots 0 and P-1, and counts your messages: in a binomial
 * tree every rank but the root sends exactly once and the root receives ceil(log2 P) times.
 * Check it from the book (commbook.exercises.check_gather()) or by hand:
 *     mpicc -DCB_STANDALONE -I kernels_c kernels_c/exercises/gather_skeleton.c -o gather_ex
 *     mpiexec -n 5 ./gather_ex
 *
 * The idea: number the ranks relative to the root, v = (rank - root + P) % P. In step
 * s = 0, 1, 2, ... (mask = 2^s) a rank whose bit s is set sends everything it holds -- its own
 * block and what it has received -- to v - mask, and is done; otherwise it receives from
 * v + mask (if that rank exists) what that subtree holds. Keep the blocks in relative order
 * in a buffer of your own, so a subtree's blocks are contiguous; at the end the root puts
 * relative block v where rank (v + root) % P belongs.
 * How many blocks does the subtree of v + mask hold? min(mask, P - (v + mask)).
 *
 * As shipped, my_gather only works on one rank.
 */
#include "exercise_harness.h"

static void my_gather(const char *sendbuf, char *recvbuf, int n, int root, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int v = (rank - root + P) % P;
    char *held = malloc((size_t)P * (size_t)(n > 0 ? n : 1)); /* blocks in relative order */
    if (n) memcpy(held, sendbuf, (size_t)n);

    /* TODO: the steps of the tree (send and stop, or receive a subtree's blocks) */

    if (v == 0 && n) /* TODO: every block, not only the root's own */
        memcpy(recvbuf + (size_t)root * (size_t)n, held, (size_t)n);
    free(held);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return ex_gather_main(ctx, "gather_exercise", my_gather);
}
