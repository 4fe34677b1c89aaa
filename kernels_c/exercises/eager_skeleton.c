/*
 * eager_skeleton.c -- EXERCISE: find the eager / rendezvous threshold of the MPI in use.
 *
 * Small messages are sent EAGERLY: MPI_Send copies them into a buffer and returns at once,
 * whether or not the receiver has posted its receive. Above a threshold the library uses a
 * RENDEZVOUS: the send cannot finish before the receiver has posted the matching receive.
 * (That is why the blocking ring of ring_skeleton.c works for 4 bytes and hangs for 1 MiB.)
 *
 * Write probe_eager_limit: on a communicator of two ranks (0 = sender, 1 = receiver; `peer`
 * is the other one), return on rank 0 the LARGEST size in bytes (<= max_bytes) that is sent
 * eagerly. A test for one size n, without any risk of deadlock:
 *   rank 0: MPI_Isend n bytes; poll MPI_Test for up to 100 ms (a loaded machine can delay even an eager send); it completed ==> eager.
 *           Then tell rank 1 to go (a small message), and MPI_Wait for the send.
 *   rank 1: wait for "go" FIRST, only then MPI_Recv the n bytes.
 * Both ranks must agree on which size to test next (rank 0 can send the next size, or -1 to
 * stop, with the "go"). A binary search needs about log2(max_bytes) tests.
 * The self-check (commbook.exercises.check_eager()) compiles your file, runs it on 2 to 4
 * ranks (rank 0 against the last rank) and compares with the reference probe.
 *
 * As shipped, probe_eager_limit claims there is no eager protocol at all.
 */
#define EX_ALLOW_NONBLOCKING 1
#include "exercise_harness.h"

static long long probe_eager_limit(int peer, long long max_bytes, MPI_Comm comm)
{
    (void)peer;
    (void)max_bytes;
    (void)comm;
    /* TODO */
    return 0;
}

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return ex_eager_main(ctx, "eager_exercise", probe_eager_limit);
}
