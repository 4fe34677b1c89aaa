/*
 * collectives_algos.c -- the code of collectives_algos.h (which says what each part is for):
 * the hand-written broadcast, gather and allreduce, their options, trace and message counts,
 * and the measurement loop every collective kernel shares.  Compiled and linked with each
 * kernel that includes the header (commbook.kernels.c_sources lists them).
 */
#define CB_HELPERS_ONLY /* commbench.h without the entry points: those are each kernel's */
#include "collectives_algos.h"

void cc_note(cc_trace *t, int step, int src, int dst, long long bytes, const char *phase)
{
    if (t == NULL || !t->on) return;
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        cc_msg *m = realloc(t->m, sizeof(cc_msg) * (size_t)cap);
        if (m == NULL) { t->on = 0; return; } /* tracing is best effort, never fatal */
        t->m = m;
        t->cap = cap;
    }
    cc_msg *e = &t->m[t->n++];
    e->step = step;
    e->src = src;
    e->dst = dst;
    e->bytes = bytes;
    snprintf(e->phase, sizeof e->phase, "%s", phase);
}

/* Rank 0 collects every rank's notes and prints them. Collective. */
void cc_trace_print(cb_ctx *ctx, const char *alg, cc_trace *t)
{
    int n = t->n, *counts = NULL, *displs = NULL, total = 0;
    if (ctx->rank == 0) {
        counts = calloc((size_t)ctx->size, sizeof(int));
        displs = calloc((size_t)ctx->size, sizeof(int));
    }
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, ctx->comm);
    if (ctx->rank == 0)
        for (int r = 0; r < ctx->size; r++) {
            displs[r] = total * (int)sizeof(cc_msg);
            total += counts[r];
            counts[r] *= (int)sizeof(cc_msg);
        }
    cc_msg *all = ctx->rank == 0 ? malloc(sizeof(cc_msg) * (size_t)(total ? total : 1)) : NULL;
    MPI_Gatherv(t->m, n * (int)sizeof(cc_msg), MPI_BYTE, all, counts, displs, MPI_BYTE, 0,
                ctx->comm);
    for (int i = 0; ctx->rank == 0 && i < total; i++)
        cb_printf(ctx, "# trace: %s step %d: %d -> %d bytes=%lld phase=%s\n", alg, all[i].step,
                  all[i].src, all[i].dst, all[i].bytes, all[i].phase);
    free(all);
    free(counts);
    free(displs);
    t->n = 0;
}

/* ---- the hand-written algorithms ----------------------------------------------------- */

int cc_real(int vr, int root, int P) { return (vr + root) % P; }

/* This rank's number relative to the root, vr = (rank - root) mod P, which every tree below is
 * drawn in; also gives the rank and the size P. */
int cc_relative_rank(MPI_Comm comm, int root, int *rank, int *P)
{
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, P);
    return (*rank - root + *P) % *P;
}

/* Largest power of two <= x (x >= 1), and the lowest set bit. */
int cc_pof2_floor(int x)
{
    int p = 1;
    while (p * 2 <= x) p *= 2;
    return p;
}
int cc_lowbit(int x) { return x & -x; }

/* Broadcast, linear: the root sends the whole message to every rank in turn with blocking
 * MPI_Send -- the "repeated point-to-point" of P. Malakar's lecture (IIT Kanpur). */
void cc_bcast_linear(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    if (rank == root) {
        for (int k = 1; k < P; k++) {
            int dst = cc_real(k, root, P);
            cc_note(tr, k, rank, dst, n, "send");
            MPI_Send(buf, n, MPI_CHAR, dst, CC_TAG, comm);
        }
    } else {
        MPI_Recv(buf, n, MPI_CHAR, root, CC_TAG, comm, MPI_STATUS_IGNORE);
    }
}

/* Broadcast, chain: receive the whole message from the predecessor, pass it to the successor. */
void cc_bcast_chain(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr)
{
    int rank, P, vr = cc_relative_rank(comm, root, &rank, &P);
    if (vr > 0)
        MPI_Recv(buf, n, MPI_CHAR, cc_real(vr - 1, root, P), CC_TAG, comm, MPI_STATUS_IGNORE);
    if (vr + 1 < P) {
        cc_note(tr, vr + 1, rank, cc_real(vr + 1, root, P), n, "hop");
        MPI_Send(buf, n, MPI_CHAR, cc_real(vr + 1, root, P), CC_TAG, comm);
    }
}

/* Broadcast, pipelined chain: the chain, but in segments of `seg` bytes, so every link of the
 * chain is busy at once.  Segment k crosses hop vr -> vr+1 in step vr + k + 1 if every link
 * moves one segment per step; the forward of segment k overlaps the receive of k+1. */
void cc_bcast_pipeline(char *buf, int n, long long seg, int root, MPI_Comm comm,
                              cc_trace *tr)
{
    int rank, P, vr = cc_relative_rank(comm, root, &rank, &P);
    int prev = cc_real(vr - 1 + P, root, P), next = cc_real(vr + 1, root, P);
    long long nseg = n > 0 ? (n + seg - 1) / seg : 1; /* an empty message is one empty segment */
    MPI_Request pending = MPI_REQUEST_NULL;
    for (long long k = 0; k < nseg; k++) {
        long long off = k * seg;
        int len = (int)(n - off < seg ? n - off : seg);
        if (n == 0) len = 0;
        if (vr > 0)
            MPI_Recv(buf + off, len, MPI_CHAR, prev, CC_TAG, comm, MPI_STATUS_IGNORE);
        if (vr + 1 < P) {
            MPI_Wait(&pending, MPI_STATUS_IGNORE);
            char phase[16];
            snprintf(phase, sizeof phase, "seg%d", (int)k);
            cc_note(tr, vr + (int)k + 1, rank, next, len, phase);
            MPI_Isend(buf + off, len, MPI_CHAR, next, CC_TAG, comm, &pending);
        }
    }
    MPI_Wait(&pending, MPI_STATUS_IGNORE);
}

/* Broadcast, binary tree (heap layout): vr receives from (vr-1)/2 and sends to 2vr+1 and
 * 2vr+2.  Step = tree level of the receiver. */
void cc_bcast_binary(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr)
{
    int rank, P, vr = cc_relative_rank(comm, root, &rank, &P);
    if (vr > 0)
        MPI_Recv(buf, n, MPI_CHAR, cc_real((vr - 1) / 2, root, P), CC_TAG, comm,
                 MPI_STATUS_IGNORE);
    int level = 0;
    for (int x = vr + 1; x > 1; x /= 2) level++;
    for (int c = 2 * vr + 1; c <= 2 * vr + 2 && c < P; c++) {
        cc_note(tr, level + 1, rank, cc_real(c, root, P), n, c == 2 * vr + 1 ? "left" : "right");
        MPI_Send(buf, n, MPI_CHAR, cc_real(c, root, P), CC_TAG, comm);
    }
}

/* Broadcast, binomial tree (as MPICH): vr receives from vr minus its lowest set bit, then
 * sends to vr + mask for every smaller power of two mask, largest first.  In step s the
 * number of ranks holding the data doubles: ceil(log2 P) steps. */
void cc_bcast_binomial(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr)
{
    int rank, P, vr = cc_relative_rank(comm, root, &rank, &P);
    int steps = cb_ceil_log2(P), mask = 1;
    while (mask < P) {
        if (vr & mask) {
            MPI_Recv(buf, n, MPI_CHAR, cc_real(vr - mask, root, P), CC_TAG, comm,
                     MPI_STATUS_IGNORE);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < P) {
            cc_note(tr, steps - cb_ceil_log2(mask), rank, cc_real(vr + mask, root, P), n, "send");
            MPI_Send(buf, n, MPI_CHAR, cc_real(vr + mask, root, P), CC_TAG, comm);
        }
    }
}

/* Gather, linear: every rank sends its block to the root, which receives them in rank order
 * straight into place (as Open MPI's basic_linear). */
void cc_gather_linear(const char *sbuf, char *rbuf, int n, int root, MPI_Comm comm,
                             cc_trace *tr)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    if (rank != root) {
        cc_note(tr, (rank - root + P) % P, rank, root, n, "send");
        MPI_Send(sbuf, n, MPI_CHAR, root, CC_TAG, comm);
        return;
    }
    for (int r = 0; r < P; r++) {
        char *dst = rbuf + (size_t)r * (size_t)n;
        if (r == root) {
            if (n) memcpy(dst, sbuf, (size_t)n);
        } else {
            MPI_Recv(dst, n, MPI_CHAR, r, CC_TAG, comm, MPI_STATUS_IGNORE);
        }
    }
}

/* Blocks a binomial-gather subtree rooted at vr holds: its own and its children's. */
int cc_subtree_blocks(int vr, int P)
{
    int low = vr == 0 ? cc_pof2_floor(P) * 2 : cc_lowbit(vr);
    return low < P - vr ? low : P - vr;
}

/* Gather, binomial tree: in step s (mask = 2^(s-1)) every rank whose lowest set bit is mask
 * sends everything it holds -- its own block and its subtree's, contiguous in relative rank
 * order -- to vr - mask.  `tmp` holds cc_subtree_blocks(vr) blocks (root: P). The root
 * rotates the relative order back into rank order. */
void cc_gather_binomial(const char *sbuf, char *rbuf, char *tmp, int n, int root,
                               MPI_Comm comm, cc_trace *tr)
{
    int rank, P, vr = cc_relative_rank(comm, root, &rank, &P);
    char *acc = (vr == 0 && root == 0) ? rbuf : tmp; /* root 0 needs no rotation */
    if (n) memcpy(acc, sbuf, (size_t)n);
    int have = 1, step = 1;
    for (int mask = 1; mask < P; mask <<= 1, step++) {
        if (vr & mask) {
            cc_note(tr, step, rank, cc_real(vr - mask, root, P), (long long)have * n, "send");
            MPI_Send(acc, have * n, MPI_CHAR, cc_real(vr - mask, root, P), CC_TAG, comm);
            return;
        }
        if (vr + mask < P) {
            int blocks = cc_subtree_blocks(vr + mask, P);
            MPI_Recv(acc + (size_t)have * (size_t)n, blocks * n, MPI_CHAR,
                     cc_real(vr + mask, root, P), CC_TAG, comm, MPI_STATUS_IGNORE);
            have += blocks;
        }
    }
    if (acc != rbuf && n) /* relative block v belongs to rank (v + root) % P */
        for (int v = 0; v < P; v++)
            memcpy(rbuf + (size_t)cc_real(v, root, P) * (size_t)n, acc + (size_t)v * (size_t)n,
                   (size_t)n);
}

/* Every allreduce below starts from this rank's own vector in rbuf; gives the rank and P. */
void cc_allreduce_start(const double *sbuf, double *rbuf, int count, MPI_Comm comm, int *rank,
                               int *P)
{
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, P);
    if (count) memcpy(rbuf, sbuf, (size_t)count * sizeof(double));
}

/* Allreduce (sum of doubles), recursive doubling -- the butterfly of F. Rappl's homework.
 * In exchange step s every rank swaps its partial sum with the rank whose number differs in
 * one bit and adds what it receives; low_to_high walks the bits 1, 2, 4, ..., otherwise
 * from the highest bit down.  For P not a power of two the extra ranks are folded in and out
 * as MPICH does: with p2 the largest power of two <= P and rem = P - p2, each even rank
 * below 2*rem hands its vector to the odd rank above it (step 0) and waits; the odd one
 * plays rank r/2 in the butterfly of p2 ranks; ranks >= 2*rem play r - rem; at the end the
 * odd ranks send the result back (last step).  `tmp` holds count doubles. */

/* Fold in (step 0): returns this rank's number among the p2 players, or -1 for an even rank
 * below 2*rem, which hands its partial sum in rbuf to the odd rank above it and sits out.
 * `tmp` holds count doubles.  (Rabenseifner's allreduce below folds the same way.) */
int cc_fold_in(double *rbuf, double *tmp, int count, int rank, int rem, MPI_Comm comm,
                      cc_trace *tr)
{
    if (rank >= 2 * rem) return rank - rem;
    if (rank % 2 == 0) {
        cc_note(tr, 0, rank, rank + 1, (long long)count * 8, "fold-in");
        MPI_Send(rbuf, count, MPI_DOUBLE, rank + 1, CC_TAG, comm);
        return -1;
    }
    MPI_Recv(tmp, count, MPI_DOUBLE, rank - 1, CC_TAG, comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < count; i++) rbuf[i] += tmp[i];
    return rank / 2;
}

/* Fold out (step `step`, the last): the odd ranks send the result back to the even ones. */
void cc_fold_out(double *rbuf, int count, int rank, int rem, int step, MPI_Comm comm,
                        cc_trace *tr)
{
    if (rank >= 2 * rem) return;
    if (rank % 2) {
        cc_note(tr, step, rank, rank - 1, (long long)count * 8, "fold-out");
        MPI_Send(rbuf, count, MPI_DOUBLE, rank - 1, CC_TAG, comm);
    } else {
        MPI_Recv(rbuf, count, MPI_DOUBLE, rank + 1, CC_TAG, comm, MPI_STATUS_IGNORE);
    }
}

/* The butterfly proper: lg exchange steps among the p2 players. */
void cc_allreduce_butterfly(const double *sbuf, double *rbuf, double *tmp, int count,
                                   int low_to_high, MPI_Comm comm, cc_trace *tr)
{
    int rank, P;
    cc_allreduce_start(sbuf, rbuf, count, comm, &rank, &P);
    size_t bytes = (size_t)count * sizeof(double);
    int p2 = cc_pof2_floor(P), rem = P - p2, lg = cb_ceil_log2(p2);
    int newrank = cc_fold_in(rbuf, tmp, count, rank, rem, comm, tr);
    if (newrank >= 0) {
        for (int s = 1; s <= lg; s++) {
            int mask = low_to_high ? 1 << (s - 1) : p2 >> s;
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            char phase[16];
            snprintf(phase, sizeof phase, "mask%d", mask);
            cc_note(tr, s, rank, dst, (long long)bytes, phase);
            MPI_Sendrecv(rbuf, count, MPI_DOUBLE, dst, CC_TAG, tmp, count, MPI_DOUBLE, dst,
                         CC_TAG, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < count; i++) rbuf[i] += tmp[i];
        }
    }
    cc_fold_out(rbuf, count, rank, rem, lg + 1, comm, tr);
}

/* Block b of a vector of `count` elements cut into `nb` near-equal blocks (the first
 * count % nb blocks one element longer): first element and length. */
static int cc_block_start(int count, int nb, int b)
{
    int q = count / nb, r = count % nb;
    return b * q + (b < r ? b : r);
}
static int cc_block_len(int count, int nb, int b) { return count / nb + (b < count % nb); }

/* Allreduce (sum of doubles), ring: a reduce-scatter then an allgather, both around the ring
 * rank -> rank+1 (Patarasuk & Yuan; Open MPI's "ring", MPICH's "ring").  The vector is cut into
 * P blocks.  Reduce-scatter step s (1..P-1): send block (rank-s+1) mod P to the right, receive
 * block (rank-s) mod P from the left and add it: after P-1 steps rank r holds the full sum of
 * block (r+1) mod P.  Allgather step s: pass on the block completed last, receive the next one
 * straight into place.  Every rank sends 2 (P-1)/P n bytes in 2 (P-1) messages: bandwidth
 * optimal, latency linear in P.  `tmp` holds count/P + 1 doubles. */
void cc_allreduce_ring(const double *sbuf, double *rbuf, double *tmp, int count,
                              MPI_Comm comm, cc_trace *tr)
{
    int rank, P;
    cc_allreduce_start(sbuf, rbuf, count, comm, &rank, &P);
    int right = (rank + 1) % P, left = (rank - 1 + P) % P;
    for (int s = 1; s < P; s++) {
        int sb = (rank - s + 1 + P) % P, rb = (rank - s + P) % P;
        int slen = cc_block_len(count, P, sb), rlen = cc_block_len(count, P, rb);
        cc_note(tr, s, rank, right, (long long)slen * 8, "reduce-scatter");
        MPI_Sendrecv(rbuf + cc_block_start(count, P, sb), slen, MPI_DOUBLE, right, CC_TAG, tmp,
                     rlen, MPI_DOUBLE, left, CC_TAG, comm, MPI_STATUS_IGNORE);
        double *dst = rbuf + cc_block_start(count, P, rb);
        for (int i = 0; i < rlen; i++) dst[i] += tmp[i];
    }
    for (int s = 1; s < P; s++) {
        int sb = (rank - s + 2 + P) % P, rb = (rank - s + 1 + P) % P;
        cc_note(tr, P - 1 + s, rank, right, (long long)cc_block_len(count, P, sb) * 8, "allgather");
        MPI_Sendrecv(rbuf + cc_block_start(count, P, sb), cc_block_len(count, P, sb), MPI_DOUBLE,
                     right, CC_TAG, rbuf + cc_block_start(count, P, rb),
                     cc_block_len(count, P, rb), MPI_DOUBLE, left, CC_TAG, comm,
                     MPI_STATUS_IGNORE);
    }
}

/* Allreduce (sum of doubles), Rabenseifner: recursive-halving reduce-scatter, then
 * recursive-doubling allgather (Thakur, Rabenseifner & Gropp 2005; MPICH's
 * "reduce_scatter_allgather", Open MPI's "rabenseifner").  Ranks that are not part of the
 * largest power of two p2 <= P are folded in and out as for the butterfly (cc_fold_in/out).
 * The p2 ranks cut the vector into p2 blocks.  Halving, partner distance p2/2, p2/4, ..., 1:
 * each rank keeps the half of its current range on its side of the partner, sends the
 * other half and adds the half it receives; at the end rank q (of the p2) owns block q,
 * fully summed.  Doubling, distance 1, 2, ..., p2/2: partners swap their ranges, which
 * double.  Every rank sends 2 (p2-1)/p2 n bytes in 2 log2 p2 messages.  `tmp` holds count
 * doubles. */
void cc_allreduce_rabenseifner(const double *sbuf, double *rbuf, double *tmp, int count,
                                      MPI_Comm comm, cc_trace *tr)
{
    int rank, P;
    cc_allreduce_start(sbuf, rbuf, count, comm, &rank, &P);
    int p2 = cc_pof2_floor(P), rem = P - p2, lg = cb_ceil_log2(p2);
    int q = cc_fold_in(rbuf, tmp, count, rank, rem, comm, tr); /* this rank among the p2, or -1 */
    if (q >= 0) {
        int lo = 0, hi = p2, step = 1; /* blocks [lo, hi) are this rank's to finish */
        for (int d = p2 / 2; d >= 1; d /= 2, step++) {
            int pq = q ^ d, partner = pq < rem ? 2 * pq + 1 : pq + rem, mid = lo + (hi - lo) / 2;
            int keep_lo = (q & d) ? mid : lo, keep_hi = (q & d) ? hi : mid;
            int send_lo = (q & d) ? lo : mid, send_hi = (q & d) ? mid : hi;
            int s0 = cc_block_start(count, p2, send_lo), s1 = cc_block_start(count, p2, send_hi);
            int k0 = cc_block_start(count, p2, keep_lo), k1 = cc_block_start(count, p2, keep_hi);
            cc_note(tr, step, rank, partner, (long long)(s1 - s0) * 8, "halving");
            MPI_Sendrecv(rbuf + s0, s1 - s0, MPI_DOUBLE, partner, CC_TAG, tmp, k1 - k0,
                         MPI_DOUBLE, partner, CC_TAG, comm, MPI_STATUS_IGNORE);
            for (int i = 0; i < k1 - k0; i++) rbuf[k0 + i] += tmp[i];
            lo = keep_lo;
            hi = keep_hi;
        }
        for (int d = 1; d < p2; d *= 2, step++) {
            int pq = q ^ d, partner = pq < rem ? 2 * pq + 1 : pq + rem;
            int plo = (q & d) ? lo - d : hi, phi = plo + d; /* the partner's range */
            int s0 = cc_block_start(count, p2, lo), s1 = cc_block_start(count, p2, hi);
            int r0 = cc_block_start(count, p2, plo), r1 = cc_block_start(count, p2, phi);
            cc_note(tr, step, rank, partner, (long long)(s1 - s0) * 8, "doubling");
            MPI_Sendrecv(rbuf + s0, s1 - s0, MPI_DOUBLE, partner, CC_TAG, rbuf + r0, r1 - r0,
                         MPI_DOUBLE, partner, CC_TAG, comm, MPI_STATUS_IGNORE);
            lo = plo < lo ? plo : lo;
            hi = phi > hi ? phi : hi;
        }
    }
    cc_fold_out(rbuf, count, rank, rem, 2 * lg + 1, comm, tr);
}

/* Broadcast, scatter + allgather (van de Geijn; MPICH's scatter_ring_allgather, Open MPI's
 * scatter_allgather_ring): the root's message is cut into P blocks of ceil(n/P) bytes (the
 * last ones shorter or empty); a binomial tree scatters them (each subtree gets its blocks,
 * contiguous in relative rank order), then a ring allgather passes every block round.
 * Every rank receives about n bytes in total instead of log2 P times n: bandwidth optimal
 * for large messages, at the price of log2 P + P - 1 latencies. */
static long long cc_span_bytes(long long n, long long block, int from, int to)
{
    long long a = (long long)from * block, b = (long long)to * block;
    if (a > n) a = n;
    if (b > n) b = n;
    return b - a;
}

void cc_bcast_scatter_allgather(char *buf, int n, int root, MPI_Comm comm, cc_trace *tr)
{
    int rank, P, vr = cc_relative_rank(comm, root, &rank, &P), steps = cb_ceil_log2(P);
    if (P == 1) return;
    long long block = ((long long)n + P - 1) / P;
    /* binomial scatter: vr receives the blocks of its subtree [vr, vr + lowbit(vr)) */
    int mask = 1;
    while (mask < P) {
        if (vr & mask) {
            int end = vr + mask < P ? vr + mask : P;
            long long len = cc_span_bytes(n, block, vr, end);
            if (len > 0)
                MPI_Recv(buf + cc_span_bytes(n, block, 0, vr), (int)len, MPI_CHAR,
                         cc_real(vr - mask, root, P), CC_TAG, comm, MPI_STATUS_IGNORE);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vr + mask < P) {
            int end = vr + 2 * mask < P ? vr + 2 * mask : P;
            long long len = cc_span_bytes(n, block, vr + mask, end);
            if (len > 0) {
                cc_note(tr, steps - cb_ceil_log2(mask), rank, cc_real(vr + mask, root, P), len, "scatter");
                MPI_Send(buf + cc_span_bytes(n, block, 0, vr + mask), (int)len, MPI_CHAR,
                         cc_real(vr + mask, root, P), CC_TAG, comm);
            }
        }
    }
    /* ring allgather in relative ranks: step s passes block vr-s+1 on, receives vr-s */
    int right = cc_real((vr + 1) % P, root, P), left = cc_real((vr - 1 + P) % P, root, P);
    for (int s = 1; s < P; s++) {
        int sb = (vr - s + 1 + P) % P, rb = (vr - s + P) % P;
        long long slen = cc_span_bytes(n, block, sb, sb + 1), rlen = cc_span_bytes(n, block, rb, rb + 1);
        cc_note(tr, steps + s, rank, right, slen, "allgather");
        MPI_Sendrecv(buf + cc_span_bytes(n, block, 0, sb), (int)slen, MPI_CHAR, right, CC_TAG,
                     buf + cc_span_bytes(n, block, 0, rb), (int)rlen, MPI_CHAR, left, CC_TAG,
                     comm, MPI_STATUS_IGNORE);
    }
}


/* ---- the options every collective kernel shares --------------------------------------- */

/* --sizes: "MIN:MAX" (MIN, then doubling up to MAX; 0 is followed by `unit`) or a list
 * "0,1,7,1M".  Every size must be a multiple of `unit` (8 for doubles). */
static int cc_parse_sizes(cb_ctx *ctx, const cb_optspec *spec, long long unit, long long *sizes,
                          int *count)
{
    const char *s = cb_opt(ctx, spec, "sizes");
    char buf[512];
    *count = 0;
    if (s == NULL || strlen(s) >= sizeof buf || *s == '\0') goto bad;
    strcpy(buf, s);
    if (strchr(buf, ':') != NULL) {
        long long lo, hi;
        if (cb_opt_range(ctx, spec, "sizes", &lo, &hi)) return CB_BAD_OPTIONS;
        for (long long v = lo; v <= hi && *count < CC_MAX_SIZES; v = v ? v * 2 : unit) {
            if (v % unit) {
                cb_printf(ctx, "# result: ERROR: --sizes %s: %lld bytes is not a multiple of "
                          "%lld (the element size)\n", s, v, unit);
                return CB_BAD_OPTIONS;
            }
            sizes[(*count)++] = v;
        }
    } else {
        for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
            long long v = cb_parse_size(tok);
            if (v < 0 || *count >= CC_MAX_SIZES) goto bad;
            if (v % unit) {
                cb_printf(ctx, "# result: ERROR: --sizes %s: %lld bytes is not a multiple of "
                          "%lld (the element size)\n", s, v, unit);
                return CB_BAD_OPTIONS;
            }
            sizes[(*count)++] = v;
        }
    }
    if (*count == 0) goto bad;
    for (int i = 0; i < *count; i++)
        if (sizes[i] > CC_MAX_BYTES) {
            cb_printf(ctx, "# result: ERROR: --sizes %s: %lld bytes exceeds 1 GiB\n", s, sizes[i]);
            return CB_BAD_OPTIONS;
        }
    return CB_OK;
bad:
    cb_printf(ctx, "# result: ERROR: --sizes '%s' is not MIN:MAX or a list a,b,c of at most %d "
              "sizes in bytes (K/M/G suffixes)\n", s ? s : "(none)", CC_MAX_SIZES);
    return CB_BAD_OPTIONS;
}

#if defined(MPICH)
/* The operation's name as MPICH spells it in its variables. */
static void cc_upper(const char *in, char *out, size_t cap)
{
    size_t i = 0;
    for (; in[i] && i + 1 < cap; i++) out[i] = (in[i] >= 'a' && in[i] <= 'z') ? in[i] - 32 : in[i];
    out[i] = '\0';
}
#endif

#if defined(OPEN_MPI) || defined(MPICH)
static int cc_env_is(const char *name, const char *want)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, want) == 0;
}
#endif

/* "library:ID[:key=value...]" only labels what the environment selects (the variables are
 * read when MPI starts, so the kernel cannot set them).  Refuse a label the environment does
 * not back, so no table ever names an algorithm that did not run. */
static int cc_check_library_label(cb_ctx *ctx, const char *op, const char *label)
{
    if (strcmp(label, "library") == 0) return CB_OK;
    char buf[64], var[160], up[32];
    snprintf(buf, sizeof buf, "%s", label + strlen("library:"));
    char *save = NULL, *id = strtok_r(buf, ":", &save);
    if (id == NULL) goto bad;
#if defined(OPEN_MPI)
    if (!cc_env_is("OMPI_MCA_coll_tuned_use_dynamic_rules", "1") &&
        !cc_env_is("OMPI_MCA_coll_tuned_use_dynamic_rules", "true")) {
        cb_printf(ctx, "# result: ERROR: algorithm %s needs OMPI_MCA_coll_tuned_use_dynamic_rules=1 "
                  "in the environment (commbook measure sets it)\n", label);
        return CB_BAD_OPTIONS;
    }
    snprintf(var, sizeof var, "OMPI_MCA_coll_tuned_%s_algorithm", op);
    if (!cc_env_is(var, id)) {
        cb_printf(ctx, "# result: ERROR: algorithm %s needs %s=%s in the environment, it is %s "
                  "(commbook measure sets it)\n", label, var, id, getenv(var) ? getenv(var) : "unset");
        return CB_BAD_OPTIONS;
    }
    for (char *kv = strtok_r(NULL, ":", &save); kv != NULL; kv = strtok_r(NULL, ":", &save)) {
        char *eq = strchr(kv, '=');
        if (eq == NULL) goto bad;
        *eq = '\0';
        snprintf(var, sizeof var, "OMPI_MCA_coll_tuned_%s_algorithm_%s", op, kv);
        if (!cc_env_is(var, eq + 1)) {
            cb_printf(ctx, "# result: ERROR: algorithm %s needs %s=%s in the environment\n", label,
                      var, eq + 1);
            return CB_BAD_OPTIONS;
        }
    }
#elif defined(MPICH)
    cc_upper(op, up, sizeof up);
    snprintf(var, sizeof var, "MPIR_CVAR_%s_INTRA_ALGORITHM", up);
    if (!cc_env_is(var, id) || !cc_env_is("MPIR_CVAR_DEVICE_COLLECTIVES", "none")) {
        cb_printf(ctx, "# result: ERROR: algorithm %s needs %s=%s and MPIR_CVAR_DEVICE_COLLECTIVES="
                  "none in the environment (without the second MPICH ignores the first)\n",
                  label, var, id);
        return CB_BAD_OPTIONS;
    }
    if (strtok_r(NULL, ":", &save) != NULL) {
        cb_printf(ctx, "# result: ERROR: algorithm %s: extra parameters are for Open MPI only\n", label);
        return CB_BAD_OPTIONS;
    }
#elif defined(CB_SIMULATED)
    (void)var;
    (void)up;
    cb_printf(ctx, "# result: ERROR: algorithm %s: in a simulated run SMPI's collective is chosen by "
              "smpirun --cfg=smpi/%s:NAME (or smpi/coll-selector), not by library:ID\n", label, op);
    return CB_BAD_OPTIONS;
#else
    (void)var;
    (void)up;
    cb_printf(ctx, "# result: ERROR: algorithm %s: selecting the library's algorithm is supported "
              "for Open MPI and MPICH only\n", label);
    return CB_BAD_OPTIONS;
#endif
    (void)up;
    return CB_OK;
bad:
    cb_printf(ctx, "# result: ERROR: algorithm '%s' is not library or library:ID[:key=value]\n", label);
    return CB_BAD_OPTIONS;
}

/* "linear,library:6" -> choice, each with the function that runs it (`library` for the
 * library's); unknown names are refused with the list of known ones. */
static int cc_parse_algorithms(cb_ctx *ctx, const cb_optspec *spec, const char *op,
                               const cc_algo *table, cc_algo_fn library, cc_choice *ch)
{
    const char *s = cb_opt(ctx, spec, "algorithm");
    char buf[512];
    ch->n = 0;
    if (s == NULL || strlen(s) >= sizeof buf || *s == '\0') goto bad;
    strcpy(buf, s);
    int forced = 0, plain = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (ch->n >= CC_MAX_ALGS || strlen(tok) >= sizeof ch->label[0]) goto bad;
        int idx = -2;
        if (strcmp(tok, "library") == 0) {
            idx = -1;
            plain = 1;
        } else if (strncmp(tok, "library:", 8) == 0) {
            idx = -1;
            forced++;
        } else {
            for (int i = 0; table[i].name != NULL; i++)
                if (strcmp(tok, table[i].name) == 0) idx = i;
        }
        if (idx == -2) {
            cb_printf(ctx, "# result: ERROR: unknown %s algorithm '%s'; known:", op, tok);
            for (int i = 0; table[i].name != NULL; i++) cb_printf(ctx, " %s", table[i].name);
            cb_printf(ctx, " library library:ID\n");
            return CB_BAD_OPTIONS;
        }
        ch->index[ch->n] = idx;
        ch->run[ch->n] = idx >= 0 ? table[idx].run : library;
        snprintf(ch->label[ch->n], sizeof ch->label[0], "%s", tok);
        ch->n++;
    }
    if (forced > 1 || (forced && plain)) {
        cb_printf(ctx, "# result: ERROR: --algorithm %s: one run can use only one library "
                  "algorithm (it is chosen by the environment when MPI starts)\n", s);
        return CB_BAD_OPTIONS;
    }
    for (int a = 0; a < ch->n; a++)
        if (ch->index[a] == -1 && cc_check_library_label(ctx, op, ch->label[a]))
            return CB_BAD_OPTIONS;
    return CB_OK;
bad:
    cb_printf(ctx, "# result: ERROR: --algorithm '%s' is not a comma list of at most %d names\n",
              s ? s : "(none)", CC_MAX_ALGS);
    return CB_BAD_OPTIONS;
}

/* ---- what the library says it will run (MPI_T control variables) ---------------------- */

#ifdef CB_SIMULATED
/* SMPI 3.32 has no MPI tool interface; its collectives are chosen by smpirun's configuration
 * (--cfg=smpi/coll-selector, --cfg=smpi/<op>), which the program cannot read back. */
static void cc_print_library_choice(cb_ctx *ctx, const char *op)
{
    cb_printf(ctx, "# library_selection: unknown (simulated: SMPI has no MPI_T; smpirun's "
              "--cfg=smpi/coll-selector or --cfg=smpi/%s chooses)\n", op);
}
#else

/* Print "# library_cvar: NAME = VALUE (ENUM NAME)" for a control variable, read back from the
 * library itself: proof that it saw the environment, not only that the variable was set. */
static void cc_print_cvar(cb_ctx *ctx, const char *name)
{
    int idx, count, verbosity, bind, scope, nlen = 0, dlen = 0;
    char vname[1] = "", item[128] = "", text[256] = "";
    union { int i; unsigned u; char c[256]; } value;
    MPI_Datatype dtype;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    MPI_T_cvar_handle h;
    if (MPI_T_cvar_get_index(name, &idx) != MPI_SUCCESS) {
        cb_printf(ctx, "# library_cvar: %s = (not a control variable of this library)\n", name);
        return;
    }
    memset(&value, 0, sizeof value);
    if (MPI_T_cvar_get_info(idx, vname, &nlen, &verbosity, &dtype, &enumtype, NULL, &dlen, &bind,
                            &scope) != MPI_SUCCESS ||
        MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) != MPI_SUCCESS) {
        cb_printf(ctx, "# library_cvar: %s = (unreadable)\n", name);
        return;
    }
    if ((dtype == MPI_CHAR && count < (int)sizeof value.c) ||
        ((dtype == MPI_INT || dtype == MPI_UNSIGNED) && count == 1))
        MPI_T_cvar_read(h, &value);
    MPI_T_cvar_handle_free(&h);
    if (dtype == MPI_CHAR) snprintf(text, sizeof text, "%s", value.c);
    else if (dtype == MPI_INT) snprintf(text, sizeof text, "%d", value.i);
    else if (dtype == MPI_UNSIGNED) snprintf(text, sizeof text, "%u", value.u);
    else snprintf(text, sizeof text, "(of a type this kernel does not print)");
    if (enumtype != MPI_T_ENUM_NULL && dtype == MPI_INT) {
        int n = 0, len = sizeof item;
        MPI_T_enum_get_info(enumtype, &n, item, &len);
        item[0] = '\0';
        for (int i = 0; i < n; i++) {
            int v;
            char nm[128];
            len = sizeof nm;
            if (MPI_T_enum_get_item(enumtype, i, &v, nm, &len) == MPI_SUCCESS && v == value.i) {
                snprintf(item, sizeof item, "%s", nm);
                break;
            }
        }
    }
    cb_printf(ctx, "# library_cvar: %s = %s%s%s%s\n", name, text, item[0] ? " (" : "", item,
              item[0] ? ")" : "");
}

static void cc_print_library_choice(cb_ctx *ctx, const char *op)
{
    int provided;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    char name[96];
#if defined(OPEN_MPI)
    snprintf(name, sizeof name, "coll_tuned_%s_algorithm", op);
    cc_print_cvar(ctx, name);
#elif defined(MPICH)
    char up[32];
    cc_upper(op, up, sizeof up);
    cc_print_cvar(ctx, "MPIR_CVAR_DEVICE_COLLECTIVES");
    snprintf(name, sizeof name, "MPIR_CVAR_%s_INTRA_ALGORITHM", up);
    cc_print_cvar(ctx, name);
    cc_print_cvar(ctx, "MPIR_CVAR_COLLECTIVE_FALLBACK");
#else
    (void)name;
#endif
    MPI_T_finalize();
}
#endif /* CB_SIMULATED */

/* ---- message counts from the library (Open MPI pml monitoring) ------------------------ */

typedef struct {
    int ok;
#ifndef CB_SIMULATED
    MPI_T_pvar_session session;
    MPI_T_pvar_handle hcount, hsize;
#endif
    int n;
    unsigned long long *c0, *b0, *c1, *b1;
    char why[160];
} cc_monitor;

static void cc_monitor_open(cc_monitor *m, MPI_Comm comm)
{
    memset(m, 0, sizeof *m);
#ifdef CB_SIMULATED
    (void)comm;
    snprintf(m->why, sizeof m->why, "simulated run: SMPI has no MPI_T to count messages with");
#else
    int provided, icount, isize, n1 = 0, n2 = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        snprintf(m->why, sizeof m->why, "MPI_T_init_thread failed");
        return;
    }
    if (MPI_T_pvar_get_index("pml_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, &icount) !=
            MPI_SUCCESS ||
        MPI_T_pvar_get_index("pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &isize) !=
            MPI_SUCCESS) {
        snprintf(m->why, sizeof m->why, "no pml_monitoring pvars (Open MPI with "
                 "OMPI_MCA_pml_monitoring_enable=1 only)");
        MPI_T_finalize();
        return;
    }
    MPI_Comm c = comm;
    if (MPI_T_pvar_session_create(&m->session) != MPI_SUCCESS ||
        MPI_T_pvar_handle_alloc(m->session, icount, &c, &m->hcount, &n1) != MPI_SUCCESS ||
        MPI_T_pvar_handle_alloc(m->session, isize, &c, &m->hsize, &n2) != MPI_SUCCESS ||
        n1 != n2) {
        snprintf(m->why, sizeof m->why, "cannot bind the monitoring pvars to the communicator");
        MPI_T_finalize();
        return;
    }
    MPI_T_pvar_start(m->session, m->hcount);
    MPI_T_pvar_start(m->session, m->hsize);
    m->n = n1;
    m->c0 = calloc((size_t)n1, sizeof *m->c0);
    m->b0 = calloc((size_t)n1, sizeof *m->b0);
    m->c1 = calloc((size_t)n1, sizeof *m->c1);
    m->b1 = calloc((size_t)n1, sizeof *m->b1);
    m->ok = 1;
#endif
}

static void cc_monitor_mark(cc_monitor *m, int after)
{
    if (!m->ok) return;
#ifndef CB_SIMULATED
    MPI_T_pvar_read(m->session, m->hcount, after ? m->c1 : m->c0);
    MPI_T_pvar_read(m->session, m->hsize, after ? m->b1 : m->b0);
#else
    (void)after;
#endif
}

/* Rank 0 prints, for one call, the messages each rank sent to each peer. Collective. */
static void cc_monitor_print(cb_ctx *ctx, cc_monitor *m, const char *alg)
{
    int all_ok = cb_all_ok(ctx, m->ok);
    if (!all_ok) {
        cb_printf(ctx, "# messages: %s unavailable: %s\n", alg,
                  m->why[0] ? m->why : "not on every rank");
        return;
    }
    int P = ctx->size;
    unsigned long long *mine = calloc((size_t)2 * P, sizeof *mine), *all = NULL;
    for (int j = 0; j < P && j < m->n; j++) {
        mine[2 * j] = m->c1[j] - m->c0[j];
        mine[2 * j + 1] = m->b1[j] - m->b0[j];
    }
    if (ctx->rank == 0) all = calloc((size_t)2 * P * P, sizeof *all);
    MPI_Gather(mine, 2 * P, MPI_UNSIGNED_LONG_LONG, all, 2 * P, MPI_UNSIGNED_LONG_LONG, 0, ctx->comm);
    int any = 0;
    for (int i = 0; ctx->rank == 0 && i < P; i++)
        for (int j = 0; j < P; j++)
            if (all[(size_t)2 * (i * P + j)]) {
                any = 1;
                cb_printf(ctx, "# messages: %s %d -> %d count=%llu bytes=%llu\n", alg, i, j,
                          all[(size_t)2 * (i * P + j)], all[(size_t)2 * (i * P + j) + 1]);
            }
    if (ctx->rank == 0 && !any) cb_printf(ctx, "# messages: %s none\n", alg);
    free(mine);
    free(all);
}

static void cc_monitor_close(cc_monitor *m)
{
#ifndef CB_SIMULATED
    if (m->ok) {
        MPI_T_pvar_stop(m->session, m->hcount);
        MPI_T_pvar_stop(m->session, m->hsize);
        MPI_T_pvar_handle_free(m->session, &m->hcount);
        MPI_T_pvar_handle_free(m->session, &m->hsize);
        MPI_T_pvar_session_free(&m->session);
        MPI_T_finalize();
    }
#endif
    free(m->c0);
    free(m->b0);
    free(m->c1);
    free(m->b1);
    memset(m, 0, sizeof *m);
}

/* ---- the measurement loop -------------------------------------------------------------- */

/* One call of algorithm `alg` (index into the kernel's cc_algo table; -1: the library's) at
 * `size` bytes. */

int cc_parse_bench(cb_ctx *ctx, const cb_optspec *spec, const char *op, const cc_algo *table,
                   cc_algo_fn library, long long unit, cc_bench *b)
{
    memset(b, 0, sizeof *b);
    b->op = op;
    b->table = table;
    if (cc_parse_sizes(ctx, spec, unit, b->sizes, &b->nsizes) ||
        cc_parse_algorithms(ctx, spec, op, table, library, &b->choice) ||
        cb_opt_timing(ctx, spec, &b->iterations, &b->repetitions) ||
        cb_opt_int(ctx, spec, "trace", 0, 1, &b->trace) ||
        cb_opt_int(ctx, spec, "monitor", 0, 1, &b->monitor) ||
        cb_opt_int(ctx, spec, "inject-error", 0, 1, &b->inject))
        return CB_BAD_OPTIONS;
    for (int i = 0; i < b->nsizes; i++) b->smax = b->sizes[i] > b->smax ? b->sizes[i] : b->smax;
    return CB_OK;
}

/* The MPI call of an operation, for messages: "allgather" -> "Allgather". */
static const char *cc_mpi_name(const char *op)
{
    static const char *names[][2] = {{"bcast", "Bcast"}, {"gather", "Gather"},
                                     {"allreduce", "Allreduce"}, {"allgather", "Allgather"},
                                     {"alltoall", "Alltoall"}, {"reduce_scatter", "Reduce_scatter"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(op, names[i][0]) == 0) return names[i][1];
    return op;
}

/* Validate, instrument, then time every (size, algorithm); repetitions interleave the
 * algorithms so a slow spell of the machine hits them all alike.  Prints the rows. */
int cc_run(cb_ctx *ctx, cc_bench *b)
{
    double *t = malloc(sizeof(double) * (size_t)b->repetitions * (size_t)b->choice.n);
    cc_trace tr = {0};
    int rc = CB_OK, injected = 0;
    if (b->inject) {
        int any = 0;
        for (int i = 0; i < b->nsizes; i++) any |= b->sizes[i] > 0;
        if (!any) {
            cb_printf(ctx, "# result: ERROR: --inject-error needs a size > 0 to corrupt\n");
            free(t);
            return CB_BAD_OPTIONS;
        }
    }
    /* Instruments first, outside any timing, on the first size that moves data. */
    long long isize = b->sizes[0];
    for (int i = b->nsizes - 1; i >= 0; i--)
        if (b->sizes[i] > 0) isize = b->sizes[i];
    if (b->trace)
        for (int a = 0; a < b->choice.n; a++) {
            if (b->choice.index[a] < 0) continue; /* the library's sends are not ours to note */
            tr.on = 1;
            b->choice.run[a](ctx, b->state, isize, &tr);
            tr.on = 0;
            cc_trace_print(ctx, b->choice.label[a], &tr);
        }
    if (b->monitor) {
        cc_monitor m;
        cc_monitor_open(&m, ctx->comm);
        for (int a = 0; a < b->choice.n; a++) {
            b->choice.run[a](ctx, b->state, isize, NULL); /* warm: connections set up */
            MPI_Barrier(ctx->comm);
            cc_monitor_mark(&m, 0);
            b->choice.run[a](ctx, b->state, isize, NULL);
            cc_monitor_mark(&m, 1);
            MPI_Barrier(ctx->comm);
            cc_monitor_print(ctx, &m, b->choice.label[a]);
        }
        cc_monitor_close(&m);
    }
    free(tr.m);
    cb_printf(ctx, "# columns: algorithm size_bytes iterations t_min_us t_median_us t_max_us\n");
    for (int i = 0; i < b->nsizes && rc == CB_OK; i++) {
        long long size = b->sizes[i];
        for (int a = 0; a < b->choice.n; a++) {
            char why[256] = "";
            int inject = b->inject && !injected && size > 0;
            int ok = b->check(ctx, b->state, b->choice.run[a], size, inject, why, sizeof why);
            if (!ok) cb_error_local(ctx, "%s %s, %lld bytes: %s", b->op, b->choice.label[a], size, why);
            if (!cb_all_ok(ctx, ok)) {
                cb_printf(ctx, "# result: VALIDATION FAILED: %s %s at %lld bytes on %d ranks differs "
                          "from MPI_%s (details on stderr)%s\n", b->op, b->choice.label[a], size,
                          ctx->size, cc_mpi_name(b->op), inject ? " [error injected on purpose]" : "");
                rc = CB_VALIDATION_FAILED;
                break;
            }
            injected |= inject;
        }
        if (rc != CB_OK) break;
        long long n = cb_iterations(b->iterations, size, 3);
        long long warm = n / 10 > 2 ? n / 10 : 2;
        for (int a = 0; a < b->choice.n; a++)
            for (long long k = 0; k < warm; k++) b->choice.run[a](ctx, b->state, size, NULL);
        for (long long r = 0; r < b->repetitions; r++)
            for (int a = 0; a < b->choice.n; a++) {
                MPI_Barrier(ctx->comm);
                double t0 = MPI_Wtime();
                for (long long k = 0; k < n; k++) b->choice.run[a](ctx, b->state, size, NULL);
                double mine = (MPI_Wtime() - t0) / (double)n * 1e6, slowest = 0;
                MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
                t[a * b->repetitions + r] = slowest;
            }
        for (int a = 0; a < b->choice.n; a++) {
            double tmin, tmed, tmax;
            cb_summary(t + a * b->repetitions, (int)b->repetitions, &tmin, &tmed, &tmax);
            cb_printf(ctx, "%s %lld %lld %.4f %.4f %.4f\n", b->choice.label[a], size, n, tmin,
                      tmed, tmax);
        }
    }
    if (rc == CB_OK) cb_printf(ctx, "# result: ok\n");
    free(t);
    return rc;
}

/* Header lines every collective kernel prints. */
static void cc_print_header(cb_ctx *ctx, cc_bench *b, int root)
{
    cb_printf(ctx, "# benchmark: %s\n", b->op);
    cb_printf(ctx, "# algorithm: ");
    for (int a = 0; a < b->choice.n; a++)
        cb_printf(ctx, "%s%s", a ? "," : "", b->choice.label[a]);
    cb_printf(ctx, "\n");
    for (int a = 0; a < b->choice.n; a++) {
        int i = b->choice.index[a];
        cb_printf(ctx, "# algorithm_%s: %s\n", b->choice.label[a],
                  i >= 0 ? b->table[i].what : "the MPI library's own collective");
    }
    int any_library = 0;
    for (int a = 0; a < b->choice.n; a++) any_library |= b->choice.index[a] < 0;
    if (any_library) cc_print_library_choice(ctx, b->op);
    cb_printf(ctx, "# root: %d\n", root);
    cb_printf(ctx, "# repetitions: %lld\n", b->repetitions);
    cb_printf(ctx, "# time: microseconds per call, mean of `iterations` back-to-back calls on the "
              "slowest rank; min/median/max over repetitions (interleaved across algorithms)\n");
    cb_printf(ctx, "# validation: every algorithm at every size against the library, on every rank\n");
}

void cc_begin(cb_ctx *ctx, const char *name, cc_bench *b, int root, void *state, cc_check_fn check)
{
    b->state = state;
    b->check = check;
    cb_header(ctx, name);
    cc_print_header(ctx, b, root);
}

int cc_blocks_fit(cb_ctx *ctx, long long smax, const char *from_or_to)
{
    if (smax * ctx->size <= INT32_MAX) return 1;
    cb_printf(ctx, "# result: ERROR: %lld bytes %s each of %d ranks exceeds the 2 GiB an MPI count "
              "can address\n", smax, from_or_to, ctx->size);
    return 0;
}

/* ---- the kernels that only time the library's collective ------------------------------- */

/* No hand-written algorithm: the models are in commbook.models.collective_schedules. */
static const cc_algo CC_NO_ALGOS[] = {{NULL, NULL, NULL}};

/* The library's collective as cc_run calls it: the kernel's own call. */
static void cc_lcall(cb_ctx *ctx, void *s, long long size, cc_trace *tr)
{
    cc_lstate *st = s;
    (void)tr; /* the library's sends are not ours to note */
    st->call(ctx, st, size);
}

/* cc_run's check: the kernel's own (`run` is always cc_lcall, which the kernel's check calls
 * through st->call). */
static int cc_lcheck(cb_ctx *ctx, void *s, cc_algo_fn run, long long size, int inject, char *why,
                     size_t cap)
{
    cc_lstate *st = s;
    (void)run;
    return st->check(ctx, st, size, inject, why, cap);
}

int cc_check_blocks(cb_ctx *ctx, cc_lstate *st, long long size, int inject_rank,
                    cc_pattern_fn pattern, const char *of, char *why, size_t cap)
{
    unsigned char *rbuf = st->rbuf;
    size_t total = (size_t)size * (size_t)ctx->size;
    memset(rbuf, 0xee, total);
    st->call(ctx, st, size);
    if (total && ctx->rank == inject_rank) rbuf[total - 1] ^= 0x5a;
    for (size_t k = 0; k < total; k++) {
        int from = (int)(k / (size_t)size);
        unsigned char want = pattern(from, ctx->rank, (long long)(k % (size_t)size), size);
        if (rbuf[k] != want) {
            snprintf(why, cap, "byte %zu (block %s rank %d) is %d, rank %d sent %d", k, of, from,
                     rbuf[k], from, want);
            return 0;
        }
    }
    return 1;
}

int cc_library_main(cb_ctx *ctx, const char *op, const cb_optspec *spec, cc_layout layout,
                    cc_lcall_fn call, cc_lcheck_fn check)
{
    static const char *const what[] = {"the buffers for %lld bytes per rank",
                                       "the buffers for %lld bytes per pair", "two buffers of %lld bytes"};
    long long unit = layout == CC_REDUCE ? 8 : 1;
    cc_bench b;
    if (cb_parse(ctx, op, spec) || cc_parse_bench(ctx, spec, op, CC_NO_ALGOS, cc_lcall, unit, &b))
        return CB_BAD_OPTIONS;
    if (layout != CC_REDUCE && !cc_blocks_fit(ctx, b.smax, layout == CC_ONE_TO_ALL ? "from" : "to"))
        return CB_BAD_OPTIONS;
    cc_lstate st = {NULL, NULL, NULL, call, check};
    cc_begin(ctx, op, &b, 0, &st, cc_lcheck);
    if (layout == CC_REDUCE)
        cb_printf(ctx, "# operation: MPI_SUM of doubles holding whole numbers (exact in any order)\n");
    size_t one = (size_t)b.smax, all = one * (size_t)ctx->size; /* one block, or one per rank */
    st.sbuf = cb_alloc((layout == CC_EACH_TO_EACH ? all : one) + (size_t)unit, 0);
    st.rbuf = cb_alloc((layout == CC_REDUCE ? one : all) + (size_t)unit, 0);
    st.counts = malloc(sizeof(int) * (size_t)ctx->size);
    int rc = cb_all_allocated(ctx, st.sbuf && st.rbuf && st.counts, what[layout], b.smax)
                 ? cc_run(ctx, &b) : CB_BAD_OPTIONS;
    free(st.sbuf);
    free(st.rbuf);
    free(st.counts);
    return rc;
}

/* ---- the allreduce kernel (allreduce.c and the butterfly exercise share it) ------------ */

const cb_optspec CC_ALLREDUCE_OPTIONS[] = {
    {"sizes", "0:1M", "vector sizes in bytes, multiples of 8 (doubles): MIN:MAX or a,b,c"},
    {"algorithm", "butterfly-lh,butterfly-hl,library",
     "comma list of: butterfly-lh butterfly-hl ring rabenseifner library library:ID (exercise: mine)"},
    CC_BENCH_OPTIONS,
    {NULL, NULL, NULL}};

typedef struct {
    double *sbuf, *rbuf, *tmp, *ref;
    cc_user_allreduce user;
} cc_astate;

double cc_avalue(int rank, long long i) { return (double)((rank * 7 + i * 3 + 1) % 1009); }

/* The algorithms of CC_ALLREDUCE_ALGOS on the kernel's buffers (`n` bytes of doubles). */
static void cc_ar_butterfly_lh(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ cc_astate *st = s; cc_allreduce_butterfly(st->sbuf, st->rbuf, st->tmp, (int)(n / 8), 1, ctx->comm, tr); }
static void cc_ar_butterfly_hl(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ cc_astate *st = s; cc_allreduce_butterfly(st->sbuf, st->rbuf, st->tmp, (int)(n / 8), 0, ctx->comm, tr); }
static void cc_ar_ring(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ cc_astate *st = s; cc_allreduce_ring(st->sbuf, st->rbuf, st->tmp, (int)(n / 8), ctx->comm, tr); }
static void cc_ar_rabenseifner(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ cc_astate *st = s; cc_allreduce_rabenseifner(st->sbuf, st->rbuf, st->tmp, (int)(n / 8), ctx->comm, tr); }
/* the reader's sends are counted by the exercise's harness; the library's are not ours to note */
static void cc_ar_mine(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ cc_astate *st = s; (void)tr; st->user(st->sbuf, st->rbuf, (int)(n / 8), ctx->comm); }
static void cc_ar_library(cb_ctx *ctx, void *s, long long n, cc_trace *tr)
{ cc_astate *st = s; (void)tr; MPI_Allreduce(st->sbuf, st->rbuf, (int)(n / 8), MPI_DOUBLE, MPI_SUM, ctx->comm); }

const cc_algo CC_ALLREDUCE_ALGOS[] = {
    {"butterfly-lh", "recursive doubling, partners differ in bit 1, 2, 4, ... (low to high)",
     cc_ar_butterfly_lh},
    {"butterfly-hl", "recursive doubling, partners differ in the highest bit first (high to low)",
     cc_ar_butterfly_hl},
    {"mine", "the reader's my_allreduce (exercise)", cc_ar_mine},
    {"ring", "ring reduce-scatter then ring allgather: 2(P-1) steps of n/P bytes", cc_ar_ring},
    {"rabenseifner", "recursive-halving reduce-scatter then recursive-doubling allgather",
     cc_ar_rabenseifner},
    {NULL, NULL, NULL}};

static int cc_acheck(cb_ctx *ctx, void *s, cc_algo_fn run, long long size, int inject, char *why,
                     size_t cap)
{
    cc_astate *st = s;
    int count = (int)(size / 8);
    for (int i = 0; i < count; i++) {
        st->sbuf[i] = cc_avalue(ctx->rank, i);
        st->rbuf[i] = -1.0;
    }
    MPI_Allreduce(st->sbuf, st->ref, count, MPI_DOUBLE, MPI_SUM, ctx->comm);
    run(ctx, s, size, NULL);
    if (inject && count && ctx->rank == ctx->size - 1) st->rbuf[count - 1] += 1.0;
    for (int i = 0; i < count; i++)
        if (st->rbuf[i] != st->ref[i]) {
            snprintf(why, cap, "element %d is %.17g, MPI_Allreduce gives %.17g", i, st->rbuf[i],
                     st->ref[i]);
            return 0;
        }
    for (int i = 0; i < count; i++)
        if (st->sbuf[i] != cc_avalue(ctx->rank, i)) {
            snprintf(why, cap, "the send buffer was modified (element %d)", i);
            return 0;
        }
    return 1;
}

int cc_allreduce_main(cb_ctx *ctx, const char *name, cc_user_allreduce user)
{
    cc_bench b;
    if (cb_parse(ctx, name, CC_ALLREDUCE_OPTIONS) ||
        cc_parse_bench(ctx, CC_ALLREDUCE_OPTIONS, "allreduce", CC_ALLREDUCE_ALGOS, cc_ar_library, 8, &b))
        return CB_BAD_OPTIONS;
    for (int a = 0; a < b.choice.n; a++)
        if (b.choice.run[a] == cc_ar_mine && user == NULL) {
            cb_printf(ctx, "# result: ERROR: algorithm 'mine' exists only in the exercise "
                      "(kernels_c/exercises/butterfly_skeleton.c)\n");
            return CB_BAD_OPTIONS;
        }

    cc_astate st = {NULL, NULL, NULL, NULL, user};
    cc_begin(ctx, name, &b, 0, &st, cc_acheck);
    cb_printf(ctx, "# operation: MPI_SUM of doubles holding whole numbers (exact in any order)\n");
    size_t bytes = (size_t)b.smax + 8;
    st.sbuf = cb_alloc(bytes, 0);
    st.rbuf = cb_alloc(bytes, 0);
    st.tmp = cb_alloc(bytes, 0);
    st.ref = cb_alloc(bytes, 0);
    int rc = cb_all_allocated(ctx, st.sbuf && st.rbuf && st.tmp && st.ref, "four buffers of %lld bytes",
                              b.smax) ? cc_run(ctx, &b) : CB_BAD_OPTIONS;
    free(st.sbuf); free(st.rbuf); free(st.tmp); free(st.ref);
    return rc;
}
