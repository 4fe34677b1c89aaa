/*
 * ring_skeleton.c -- EXERCISE: the ring with blocking MPI_Send / MPI_Recv.
 *
 * Every rank sends a message of n bytes to its right neighbour and receives one from its left
 * neighbour; the harness repeats this P times, so every message goes once round the ring, and
 * checks on every rank that each step delivered the message of the right origin.
 *
 * As shipped, ring_shift does what most first attempts do: every rank sends, then receives.
 * Check it from the book (commbook.exercises.check_ring()) or by hand:
 *     mpicc -DCB_STANDALONE -I kernels_c kernels_c/exercises/ring_skeleton.c -o ring_ex
 *     mpiexec -n 4 ./ring_ex --sizes 4,1M
 * It works for 4 bytes and hangs for 1 MiB: the harness's watchdog reports a DEADLOCK.
 *
 * Your task: change the ORDER of the calls so that no cycle of waits can form, for every
 * P >= 1 (odd P included) and every size. Only MPI_Send and MPI_Recv are allowed
 * (MPI_Sendrecv and the non-blocking calls would hide the problem: the build refuses them).
 */
#include "exercise_harness.h"

static void ring_shift(const char *sendbuf, char *recvbuf, int n, int left, int right,
                       MPI_Comm comm)
{
    /* TODO: this order deadlocks once MPI_Send waits for the matching receive */
    MPI_Send(sendbuf, n, MPI_CHAR, right, 0, comm);
    MPI_Recv(recvbuf, n, MPI_CHAR, left, 0, comm, MPI_STATUS_IGNORE);
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return ex_ring_main(ctx, "ring_exercise", ring_shift);
}
