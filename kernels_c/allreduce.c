/*
 * allreduce.c -- allreduce (sum of doubles) by recursive doubling, the "butterfly" of
 * F. Rappl's homework (CU Boulder, NCAR Frost), in both bit orders and for any number of
 * ranks, against the library's MPI_Allreduce (as chosen by the library, or forced with library:ID).
 *
 * Every algorithm is checked at every size on every rank against MPI_Allreduce; the values
 * are whole numbers so the sums are exact whatever the order of additions.  --trace 1 prints
 * the communication diagram ("# trace: butterfly-lh step 1: 0 -> 1 ...").  The code lives
 * in collectives_algos.c, shared with the exercise kernels_c/exercises/butterfly_skeleton.c.
 */
#include "collectives_algos.h"

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    (void)comm;
    return cc_allreduce_main(ctx, "allreduce", NULL);
}
