/*
 * cartesian.c -- communicators, ranks and Cartesian topologies (the MPI primer,
 * book/mpi_primer.md). The ranks form a 2-D grid, periodic in dimension 0 only; each finds its
 * coordinates and its four neighbours, exchanges its rank with them (MPI_Sendrecv; at an edge
 * the neighbour is MPI_PROC_NULL and nothing moves), then splits the grid into rows and sums
 * the ranks of its row. Every rank checks what it received; rank 0 prints the grid.
 */
#include "commbench.h"

static const cb_optspec CB_OPTIONS[] = {{NULL, NULL, NULL}};

static int cb_kernel(MPI_Comm comm, cb_ctx *ctx)
{
    if (cb_parse(ctx, "cartesian", CB_OPTIONS)) return CB_BAD_OPTIONS;
    int P = ctx->size;
    cb_header(ctx, "cartesian");
    /* cartesian: the grid */
    int dims[2] = {0, 0}, periods[2] = {1, 0};  /* periodic in dimension 0 only */
    MPI_Dims_create(P, 2, dims);                /* 6 ranks -> 3 x 2, 4 -> 2 x 2 */
    MPI_Comm grid;
    MPI_Cart_create(comm, 2, dims, periods, 1, &grid);  /* 1: MPI may renumber the ranks */
    int me, coords[2], up, down, left, right;
    MPI_Comm_rank(grid, &me);                   /* my rank in the grid, maybe not in comm */
    MPI_Cart_coords(grid, me, 2, coords);
    MPI_Cart_shift(grid, 0, 1, &up, &down);     /* along dimension 0: wraps around */
    MPI_Cart_shift(grid, 1, 1, &left, &right);  /* along dimension 1: MPI_PROC_NULL at edges */
    /* end of the grid */

    /* cartesian: exchange with the neighbours */
    int from_up = -1, from_down = -1, from_left = -1, from_right = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, down, 0, &from_up, 1, MPI_INT, up, 0, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&me, 1, MPI_INT, up, 1, &from_down, 1, MPI_INT, down, 1, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&me, 1, MPI_INT, right, 2, &from_left, 1, MPI_INT, left, 2, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&me, 1, MPI_INT, left, 3, &from_right, 1, MPI_INT, right, 3, grid, MPI_STATUS_IGNORE);
    /* end of the exchange */
    int ok = from_up == up && from_down == down
             && from_left == (left == MPI_PROC_NULL ? -1 : left)    /* untouched at an edge */
             && from_right == (right == MPI_PROC_NULL ? -1 : right);

    /* cartesian: one communicator per row */
    MPI_Comm row;
    MPI_Comm_split(grid, coords[0], coords[1], &row);  /* colour: the row; key: the column */
    int row_rank, row_sum;
    MPI_Comm_rank(row, &row_rank);
    MPI_Allreduce(&me, &row_sum, 1, MPI_INT, MPI_SUM, row);
    /* end of the rows */
    int expected_sum = 0;
    for (int c = 0; c < dims[1]; c++) {
        int r, cc[2] = {coords[0], c};
        MPI_Cart_rank(grid, cc, &r);
        expected_sum += r;
    }
    ok = ok && row_rank == coords[1] && row_sum == expected_sum;

    int mine[8] = {me, coords[0], coords[1], up, down, left, right, row_sum};
    int *all = ctx->rank == 0 ? malloc(sizeof mine * (size_t)P) : NULL;
    MPI_Gather(mine, 8, MPI_INT, all, 8, MPI_INT, 0, grid);
    cb_printf(ctx, "# dims: %dx%d\n# periodic: dimension 0 yes, dimension 1 no\n", dims[0], dims[1]);
    cb_printf(ctx, "# columns: rank row col up down left right row_sum\n");
    for (int r = 0; ctx->rank == 0 && r < P; r++) {
        for (int k = 0; k < 8; k++)
            if (k >= 3 && k <= 6 && all[8 * r + k] == MPI_PROC_NULL)
                cb_printf(ctx, "%s", k < 7 ? "none " : "none\n");
            else
                cb_printf(ctx, k < 7 ? "%d " : "%d\n", all[8 * r + k]);
    }
    free(all);
    MPI_Comm_free(&row);
    MPI_Comm_free(&grid);
    return cb_verdict(ctx, cb_all_ok(ctx, ok), "a rank received something else from a neighbour "
                      "or its row");
}
