/* divload_mpi_partition.h: batches whose cost is not linear, on ranks of different speeds
 * (cerin2006): each rank's share from its speed or its learned timings, the splitters of a
 * sample sort and an exact rebalancing. Part of divload_mpi.h, which includes it.
 * Header-only; hand-written. */
#ifndef DIVLOAD_MPI_PARTITION_H
#define DIVLOAD_MPI_PARTITION_H

#include "divload_mpi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Work whose cost is not linear in its size, on ranks of different speeds (cerin2006,
 * "model": "partition"): plan each rank's share of a batch, learn the cost from the
 * batches already done, and a sample sort whose ranks end up with their planned shares.
 *
 *     divload_mpi_partition part;
 *     divload_mpi_partition_create(MPI_COMM_WORLD, 0, my_speed, &part);  // or measured:
 *                                          // divload_mpi_measure_speed(...)
 *     for (batch = 0; batch < batches; batch++) {
 *         divload_mpi_partition_plan(&part, n, DIVLOAD_MPI_SPLIT_LEARNED); // same status everywhere
 *         ... this rank takes records [part.my_displacement, + part.my_count) of the batch
 *         t0 = clock(); sort them locally by key; ...
 *         divload_mpi_partition_splitters(&part, recs, part.my_count, sizeof(record), 0, 10, 0, sendcounts);
 *         ... MPI_Alltoall of the counts, MPI_Alltoallv of the records, merge the runs
 *         divload_mpi_partition_rebalance(&part, merged, got, record_type, out, &moved);
 *         divload_mpi_partition_observe(&part, part.my_count, clock() - t0);   // local
 *     }
 *     divload_mpi_partition_free(&part);                                       // local
 *
 * The plan. On the root, divload_mpi_partition_plan writes a partition document with one
 * worker per rank ("rank 0", "rank 1", ...; the root keeps it in `document`) and plans
 * it with divload_plan_shares: the exact integer split where all ranks finish together
 * (cerin2006 §4). What each rank's cost is depends on the split asked for:
 *   - DIVLOAD_MPI_SPLIT_EVEN: the same linear cost on every rank, and of the optimal
 *     splits of that document the even one (items / size each, the first items % size
 *     ranks one more);
 *   - DIVLOAD_MPI_SPLIT_SPEED: a linear cost per item of alpha / speed, the split by speed
 *     alone (the paper's A.1, its eq. (1), and §3.3's "linear guess" for a first batch);
 *   - DIVLOAD_MPI_SPLIT_LEARNED: a rank's observations as its measured cost,
 *     `"comp_table": [[items, seconds], ...], "repair": true` (observations of nearly
 *     the same size first merged into one point, DIVLOAD_MPI_PARTITION_MERGE; then
 *     decreasing times pooled into their weighted mean: §3.3's monotone repair;
 *     interpolated piecewise-linearly, one point extended as the line from the origin,
 *     the last segment beyond the last point), and the linear guess alpha / speed for a
 *     rank without observations. Each rank learns its own cost (unrelated processors), so
 *     a rank whose speed was misjudged is corrected by its own timings.
 * alpha is the mean of seconds * speed / items over every rank's latest observation, so
 * that guesses and tables are in the same unit (seconds); with no observation at all it
 * is 1 and the predicted makespan (`summary.makespan`) is in seconds per item at speed 1.
 * Each rank keeps its last DIVLOAD_MPI_PARTITION_POINTS observations (a comp_table's
 * capacity), the oldest replaced first, and the plan gathers them on the root. Blocks are
 * laid out by rank: rank r's items are [displs[r], displs[r] + counts[r]), so in a sort
 * the ranks hold the sorted output in rank order.
 *
 * The splitters (regular sampling, weighted). Every rank's records are sorted by a key of
 * `key_len` bytes at `key_offset`, compared as memcmp does. Each rank samples c = min(n,
 * samples) keys at the positions (2k + 1) n / (2c), k < c, each standing for n / c
 * records; the root gathers them, sorts them, and estimates how many records lie below
 * each sample key (the weight of the samples before it, plus half its own). Splitter j
 * is the sample key (or -infinity, +infinity) whose estimate is closest to the plan's
 * cumulative share of the records, M (counts[0] + ... + counts[j]) / items for M
 * records in all; the root broadcasts them and every rank cuts its sorted records at
 * them (records with a key below splitter j go to ranks 0..j). Rank i then receives about
 * counts[i] records when keys are distinct: in each rank r the records below a sample key
 * lie between two of r's sample positions, so an estimate is off by at most
 * w_r / 2 + 1 there (w_r = n_r / c_r), and the closest candidate is at most half the
 * largest weight from the target; a rank's count, the difference of two cuts, is off by
 * at most sum_r w_r + max_r w_r + 2 size (tests/mpi/test_partition.c checks this bound).
 * Equal keys all go to the same rank, so with repeated keys the bound does not hold.
 *
 * The exact counts. divload_mpi_partition_rebalance makes them exact: the ranks' sorted
 * records are one sorted sequence in rank order, and each rank sends the part of its
 * stretch of that sequence that falls into another rank's planned block [displs[r],
 * displs[r] + counts[r]) there, by one MPI_Alltoallv. Only the records around the
 * splitters move (`moved` says how many), the output stays sorted, and each rank ends
 * with exactly counts[rank] records, duplicate keys or not.
 * ------------------------------------------------------------------------------------ */

/* A rank's observations kept for learning: the capacity of a document's comp_table. */
#define DIVLOAD_MPI_PARTITION_POINTS 32

/* Observations of one rank whose sizes lie within this fraction of the smallest of them
 * are one point of its learned cost, at their centroid (mean size, mean seconds). Points
 * much closer than the timing noise give a table whose slopes are noise: two timings 1 %
 * apart in size and 5 % apart in time make a segment five times too steep or flat, and
 * a flat one after repair hands a rank items for nothing (derivation partition.md §7,
 * critique 1). Once the plans settle, a rank's timings fall into one point, and the plan
 * from one point per rank (its line from the origin) is a fixed point exactly where all
 * ranks finish together, whatever the cost; the mean averages the noise out. */
#define DIVLOAD_MPI_PARTITION_MERGE 0.1

/* Which split divload_mpi_partition_plan makes (see above). */
#define DIVLOAD_MPI_SPLIT_LEARNED 0
#define DIVLOAD_MPI_SPLIT_SPEED 1
#define DIVLOAD_MPI_SPLIT_EVEN 2

/* Samples per rank for divload_mpi_partition_splitters when it is given 0. */
#define DIVLOAD_MPI_DEFAULT_SAMPLES 256

/* A partition of batches, known on every rank of its communicator. */
typedef struct divload_mpi_partition {
    MPI_Comm comm;            /* the communicator (not owned) */
    int root;                 /* the rank that plans */
    int size;                 /* ranks */
    int rank;                 /* this rank */
    double *speeds;           /* [size] every rank's speed, as given to create */
    long long items;          /* items of the last plan (0 before the first) */
    int split;                /* the last plan's DIVLOAD_MPI_SPLIT_*, -1 before the first */
    int my_count;             /* this rank's items in the last plan */
    int my_displacement;      /* its first item: the sum of the counts of lower ranks */
    int *counts;              /* [size] items of each rank in the last plan */
    int *displs;              /* [size] first item of each rank */
    int learned_from;         /* observations the last plan used, over all ranks */
    divload_plan_summary summary; /* the last plan's: predicted makespan, bound, method */
    /* This rank's last observations (items, seconds), oldest first once full. */
    int my_observations;
    int my_next;
    long long my_items[DIVLOAD_MPI_PARTITION_POINTS];
    double my_seconds[DIVLOAD_MPI_PARTITION_POINTS];
    /* On the root only (NULL elsewhere): every rank's observations as the last plan
     * gathered them, and the document it planned (NUL-terminated). */
    int *all_observations;    /* [size] */
    long long *all_items;     /* [size * DIVLOAD_MPI_PARTITION_POINTS] */
    double *all_seconds;      /* [size * DIVLOAD_MPI_PARTITION_POINTS] */
    char *document;
    size_t document_len;
} divload_mpi_partition;

/* Frees what the partition holds. Local: no communication. */
static inline void divload_mpi_partition_free(divload_mpi_partition *part) {
    if (part == NULL) return;
    free(part->speeds);
    free(part->counts);
    free(part->displs);
    free(part->all_observations);
    free(part->all_items);
    free(part->all_seconds);
    free(part->document);
    part->speeds = NULL;
    part->counts = part->displs = part->all_observations = NULL;
    part->all_items = NULL;
    part->all_seconds = NULL;
    part->document = NULL;
    part->document_len = 0;
}

/* Your reading of elapsed time in seconds, for divload_mpi_measure_speed: MPI_Wtime, or a
 * CPU clock when ranks share cores. */
typedef double (*divload_mpi_clock_fn)(void);

static inline double divload_mpi_wtime_(void) { return MPI_Wtime(); }

/* This rank's speed, measured: `items` / the best of 3 timings of compute(ctx, items),
 * with `clock` (NULL for MPI_Wtime). Any fixed workload will do, as long as every rank
 * runs the same one: speeds are relative. Returns DIVLOAD_OK, DIVLOAD_NULL_PARAMETER for
 * a NULL `compute` or `speed`, DIVLOAD_INVALID_INPUT for items < 1 or a workload too
 * short for the clock to time (no positive, finite duration). `*speed` is written only
 * on success. Local: no communication. */
static inline int divload_mpi_measure_speed(divload_mpi_compute_fn compute, void *ctx, int items,
                                            divload_mpi_clock_fn clock, double *speed) {
    if (compute == NULL || speed == NULL) return DIVLOAD_NULL_PARAMETER;
    if (items < 1) return DIVLOAD_INVALID_INPUT;
    if (clock == NULL) clock = divload_mpi_wtime_;
    double best = 0.0;
    for (int rep = 0; rep < 3; rep++) {
        const double t0 = clock();
        compute(ctx, items);
        const double dt = clock() - t0;
        if (rep == 0 || dt < best) best = dt;
    }
    const double s = (double)items / best;
    if (!(best > 0.0) || !isfinite(s)) return DIVLOAD_INVALID_INPUT;
    *speed = s;
    return DIVLOAD_OK;
}

/* Sets up a partition over `comm`: every rank gives its speed (finite and > 0; only the
 * ratios matter), which every rank learns. No plan yet: call divload_mpi_partition_plan.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_INVALID_INPUT for
 * `root` outside [0, size) or a speed on any rank that is not finite and > 0,
 * DIVLOAD_NULL_PARAMETER when `part` is NULL on any rank, DIVLOAD_OUT_OF_MEMORY when any
 * rank cannot allocate. On failure `part` (if not NULL) holds nothing to free.
 * Collective over `comm`: every rank passes the same `root`. */
static inline int divload_mpi_partition_create(MPI_Comm comm, int root, double my_speed,
                                               divload_mpi_partition *part) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (part != NULL) {
        memset(part, 0, sizeof *part);
        part->comm = comm;
        part->root = root;
        part->size = size;
        part->rank = rank;
    }
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size, points = DIVLOAD_MPI_PARTITION_POINTS;
    /* One allreduce settles the arguments and the allocations of every rank. */
    int ok[3] = {part != NULL, isfinite(my_speed) && my_speed > 0.0, 0}, all_ok[3] = {0, 0, 0};
    if (ok[0]) {
        part->speeds = (double *)divload_mpi_alloc_(n, sizeof(double));
        part->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
        part->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
        ok[2] = part->speeds && part->counts && part->displs;
        if (rank == root) {
            part->all_observations = (int *)divload_mpi_alloc_(n, sizeof(int));
            part->all_items = (long long *)divload_mpi_alloc_(n, points * sizeof(long long));
            part->all_seconds = (double *)divload_mpi_alloc_(n, points * sizeof(double));
            ok[2] = ok[2] && part->all_observations && part->all_items && part->all_seconds;
        }
    }
    MPI_Allreduce(ok, all_ok, 3, MPI_INT, MPI_LAND, comm);
    if (!all_ok[0] || !all_ok[1] || !all_ok[2]) {
        divload_mpi_partition_free(part);
        return !all_ok[0] ? DIVLOAD_NULL_PARAMETER : !all_ok[1] ? DIVLOAD_INVALID_INPUT : DIVLOAD_OUT_OF_MEMORY;
    }
    MPI_Allgather(&my_speed, 1, MPI_DOUBLE, part->speeds, 1, MPI_DOUBLE, comm);
    part->split = -1;
    return DIVLOAD_OK;
}

/* Records that this rank took `seconds` (finite and > 0) for `items` (>= 1) items of the
 * work being partitioned; the next DIVLOAD_MPI_SPLIT_LEARNED plan learns from it. Keeps
 * the last DIVLOAD_MPI_PARTITION_POINTS. Returns DIVLOAD_OK, DIVLOAD_NULL_PARAMETER or
 * DIVLOAD_INVALID_INPUT (then nothing is recorded). Local: no communication. */
static inline int divload_mpi_partition_observe(divload_mpi_partition *part, long long items, double seconds) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    if (items < 1 || !isfinite(seconds) || !(seconds > 0.0)) return DIVLOAD_INVALID_INPUT;
    const int k = part->my_next;
    part->my_items[k] = items;
    part->my_seconds[k] = seconds;
    part->my_next = (k + 1) % DIVLOAD_MPI_PARTITION_POINTS;
    if (part->my_observations < DIVLOAD_MPI_PARTITION_POINTS) part->my_observations++;
    return DIVLOAD_OK;
}

/* The partition document (on the root, from the observations gathered there). */
static inline void divload_mpi_put_partition_(divload_mpi_text_ *t, const divload_mpi_partition *part,
                                              long long items, int split, double alpha, int learned_from) {
    static const char *const splits[] = {"learned from the ranks' timings", "by speed alone", "even"};
    const size_t points = DIVLOAD_MPI_PARTITION_POINTS;
    divload_mpi_put_(t,
                     "{\"version\": 1, \"model\": \"partition\",\n \"comment\": \"written by "
                     "divload_mpi_partition_plan on %d ranks: split %s, %d observation(s); linear costs are "
                     "alpha / speed with alpha ",
                     part->size, splits[split], learned_from);
    divload_mpi_put_double_(t, alpha);
    divload_mpi_put_(t, "\",\n \"items\": %lld,\n \"workers\": [", items);
    for (int r = 0; r < part->size; r++) {
        const int seen = part->all_observations[r];
        divload_mpi_put_(t, "%s{\"name\": \"rank %d\", ", r ? ",\n   " : "", r);
        if (split == DIVLOAD_MPI_SPLIT_LEARNED && seen > 0) {
            /* By size (insertion: at most DIVLOAD_MPI_PARTITION_POINTS), then each run of
               sizes within DIVLOAD_MPI_PARTITION_MERGE of its first as one point at its
               centroid. */
            long long n_at[DIVLOAD_MPI_PARTITION_POINTS];
            double s_at[DIVLOAD_MPI_PARTITION_POINTS];
            for (int k = 0; k < seen; k++) {
                const long long nk = part->all_items[(size_t)r * points + (size_t)k];
                const double sk = part->all_seconds[(size_t)r * points + (size_t)k];
                int j = k;
                for (; j > 0 && n_at[j - 1] > nk; j--) {
                    n_at[j] = n_at[j - 1];
                    s_at[j] = s_at[j - 1];
                }
                n_at[j] = nk;
                s_at[j] = sk;
            }
            divload_mpi_put_(t, "\"comp_table\": [");
            for (int k = 0, written = 0; k < seen; written++) {
                double n_sum = 0.0, s_sum = 0.0;
                int m = 0;
                const double limit = (double)n_at[k] * (1.0 + DIVLOAD_MPI_PARTITION_MERGE);
                for (; k < seen && (m == 0 || (double)n_at[k] <= limit); k++, m++) {
                    n_sum += (double)n_at[k];
                    s_sum += s_at[k];
                }
                divload_mpi_put_(t, "%s[%lld, ", written ? ", " : "", (long long)(n_sum / m + 0.5));
                divload_mpi_put_double_(t, s_sum / m);
                divload_mpi_put_(t, "]");
            }
            divload_mpi_put_(t, "], \"repair\": true}");
        } else {
            divload_mpi_put_(t, "\"comp_per_item\": ");
            divload_mpi_put_double_(t, split == DIVLOAD_MPI_SPLIT_EVEN ? alpha : alpha / part->speeds[r]);
            divload_mpi_put_(t, "}");
        }
    }
    divload_mpi_put_(t, "]}\n");
}

/* Plans `items` items (1 to INT_MAX: MPI counts are int) over the ranks with the split
 * `split` (DIVLOAD_MPI_SPLIT_LEARNED, _SPEED or _EVEN, see above) and broadcasts it: on
 * success every rank knows counts, displs, its own my_count and my_displacement, and the
 * summary (summary.makespan is the plan's predicted makespan under the costs written,
 * summary.method how it was found). The observations of every rank are gathered on the
 * root first, for any split (so `all_observations` and the document show them).
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_NULL_PARAMETER for a
 * NULL `part` (on every rank or none), DIVLOAD_INVALID_INPUT for items outside [1,
 * INT_MAX] or an unknown split (as the root sees them), DIVLOAD_OUT_OF_MEMORY, or
 * libdivload's status for the document (divload_last_error_message() explains on the
 * root); DIVLOAD_INVALID_INPUT at once for a partition that create did not set up (or
 * that was freed). On failure the previous plan is kept. Collective over the partition's
 * communicator: every rank passes the same `items` and `split`. */
static inline int divload_mpi_partition_plan(divload_mpi_partition *part, long long items, int split) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    if (part->speeds == NULL || part->counts == NULL) return DIVLOAD_INVALID_INPUT; /* not created */
    const int size = part->size, root = part->root, points = DIVLOAD_MPI_PARTITION_POINTS;
    int status = DIVLOAD_OK;
    /* Oldest first: the ring buffer unrolled. */
    long long items_now[DIVLOAD_MPI_PARTITION_POINTS];
    double seconds_now[DIVLOAD_MPI_PARTITION_POINTS];
    const int seen = part->my_observations, first = seen < points ? 0 : part->my_next;
    for (int k = 0; k < points; k++) {
        const int from = (first + k) % points;
        items_now[k] = k < seen ? part->my_items[from] : 0;
        seconds_now[k] = k < seen ? part->my_seconds[from] : 0.0;
    }
    MPI_Gather(&seen, 1, MPI_INT, part->all_observations, 1, MPI_INT, root, part->comm);
    MPI_Gather(items_now, points, MPI_LONG_LONG, part->all_items, points, MPI_LONG_LONG, root, part->comm);
    MPI_Gather(seconds_now, points, MPI_DOUBLE, part->all_seconds, points, MPI_DOUBLE, root, part->comm);

    int *counts = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
    int learned_from = 0;
    divload_plan_summary summary;
    memset(&summary, 0, sizeof summary);
    if (part->rank == root) {
        divload_share *shares = NULL;
        char *doc = NULL;
        if (items < 1 || items > INT_MAX || split < DIVLOAD_MPI_SPLIT_LEARNED || split > DIVLOAD_MPI_SPLIT_EVEN) {
            status = DIVLOAD_INVALID_INPUT;
        } else {
            /* alpha: seconds per item at speed 1, from each rank's latest observation. */
            double alpha_sum = 0.0;
            int latest = 0;
            for (int r = 0; r < size; r++) {
                const int m = part->all_observations[r];
                learned_from += m;
                if (m < 1) continue;
                const size_t at = (size_t)r * (size_t)points + (size_t)(m - 1);
                alpha_sum += part->all_seconds[at] * part->speeds[r] / (double)part->all_items[at];
                latest++;
            }
            const double alpha = latest > 0 && isfinite(alpha_sum / latest) && alpha_sum > 0.0
                                     ? alpha_sum / latest
                                     : 1.0;
            if (split != DIVLOAD_MPI_SPLIT_LEARNED) learned_from = 0;
            divload_mpi_text_ count = {NULL, 0, 0};
            divload_mpi_put_partition_(&count, part, items, split, alpha, learned_from);
            doc = (char *)divload_mpi_alloc_(count.len + 1, 1);
            shares = (divload_share *)divload_mpi_alloc_((size_t)size, sizeof(divload_share));
            if (doc == NULL || shares == NULL || counts == NULL) {
                status = DIVLOAD_OUT_OF_MEMORY;
            } else {
                divload_mpi_text_ text = {doc, count.len + 1, 0};
                divload_mpi_put_partition_(&text, part, items, split, alpha, learned_from);
                size_t got = 0;
                status = (int)divload_plan_shares(doc, text.len, shares, (size_t)size, &got, &summary);
                uint64_t total = 0;
                for (int r = 0; status == DIVLOAD_OK && r < size; r++) {
                    /* A document of one worker per rank gives one share per rank, which
                       sum to `items` <= INT_MAX; anything else is a library fault. */
                    if (got != (size_t)size || shares[r].count > (uint64_t)items) status = DIVLOAD_INVALID_INPUT;
                    else counts[r] = (int)shares[r].count;
                    total += shares[r].count;
                }
                if (status == DIVLOAD_OK && total != (uint64_t)items) status = DIVLOAD_INVALID_INPUT;
                /* Equal costs: every split whose largest count is ceil(items / size) is
                   optimal, the plan's among them; the even split is the one that spreads
                   the remainder one by one, as MPI_Scatter's users do. */
                for (int r = 0; status == DIVLOAD_OK && split == DIVLOAD_MPI_SPLIT_EVEN && r < size; r++)
                    counts[r] = (int)(items / size + (r < items % size));
            }
            if (status == DIVLOAD_OK) {
                free(part->document);
                part->document = doc;
                part->document_len = count.len;
                doc = NULL;
            }
        }
        free(doc);
        free(shares);
    }
    int agreed[2] = {status, counts == NULL}, all[2] = {0, 0};
    MPI_Allreduce(agreed, all, 2, MPI_INT, MPI_MAX, part->comm);
    /* The root's status, unless a rank could not allocate. */
    MPI_Bcast(&status, 1, MPI_INT, root, part->comm);
    if (status == DIVLOAD_OK && all[1]) status = DIVLOAD_OUT_OF_MEMORY;
    if (status != DIVLOAD_OK) {
        free(counts);
        return status;
    }
    MPI_Bcast(counts, size, MPI_INT, root, part->comm);
    MPI_Bcast(&learned_from, 1, MPI_INT, root, part->comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(&summary, (int)sizeof summary, MPI_BYTE, root, part->comm);
    int at = 0;
    for (int r = 0; r < size; r++) {
        part->counts[r] = counts[r];
        part->displs[r] = at;
        at += counts[r];
    }
    free(counts);
    part->items = items;
    part->split = split;
    part->learned_from = learned_from;
    part->summary = summary;
    part->my_count = part->counts[part->rank];
    part->my_displacement = part->displs[part->rank];
    return DIVLOAD_OK;
}

/* Sorts `idx[0..n)` by the keys they index (stride `stride`, `len` bytes each), stably, by
 * bottom-up merging through `tmp`; qsort's comparator cannot carry the key's length. */
static inline void divload_mpi_sort_keys_(int *idx, int *tmp, int n, const unsigned char *keys, size_t stride,
                                          size_t len) {
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            const int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = memcmp(keys + (size_t)idx[b] * stride, keys + (size_t)idx[a] * stride, len) < 0
                               ? idx[b++]
                               : idx[a++];
            while (a < mid) tmp[o++] = idx[a++];
            while (b < hi) tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, sizeof(int) * (size_t)n);
        if (width > n / 2) break;
    }
}

/* Weighted splitters for a sample sort (see above): from this rank's `n` records at
 * `records` (`record_size` bytes each), sorted by the key of `key_len` bytes at
 * `key_offset` (memcmp order), writes into `sendcounts[size]` how many of its records,
 * in order, go to each rank so that rank i receives about counts[i] of the last plan.
 * `samples` per rank: 0 for DIVLOAD_MPI_DEFAULT_SAMPLES; more samples, closer counts.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_NULL_PARAMETER for a
 * NULL `part` (on every rank or none), or on any rank a NULL `sendcounts` or NULL
 * `records` with n > 0; DIVLOAD_INVALID_INPUT on any rank for n < 0, samples < 0,
 * key_len 0, a key beyond the record, records not sorted by their key, no plan yet, or
 * more sample bytes than an int counts (size * samples * key_len); DIVLOAD_OUT_OF_MEMORY.
 * `sendcounts` is written only on success. Collective over the partition's
 * communicator: every rank passes the same record layout and `samples`. */
static inline int divload_mpi_partition_splitters(const divload_mpi_partition *part, const void *records, int n,
                                                  size_t record_size, size_t key_offset, size_t key_len,
                                                  int samples, int *sendcounts) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    const int size = part->size, root = part->root, rank = part->rank;
    const unsigned char *rec = (const unsigned char *)records;
    if (samples == 0) samples = DIVLOAD_MPI_DEFAULT_SAMPLES;
    const int fine = 0, no_mem = 1, invalid = 2, null = 3;
    int problem = fine;
    if (sendcounts == NULL || (rec == NULL && n > 0)) problem = null;
    else if (n < 0 || samples < 0 || key_len == 0 || key_offset > record_size ||
             key_len > record_size - key_offset || part->counts == NULL || part->split < 0 ||
             (double)size * (double)samples * (double)key_len > (double)INT_MAX)
        problem = invalid;
    for (int i = 1; problem == fine && i < n; i++)
        if (memcmp(rec + (size_t)(i - 1) * record_size + key_offset, rec + (size_t)i * record_size + key_offset,
                   key_len) > 0)
            problem = invalid;
    const int c = problem == fine ? (n < samples ? n : samples) : 0;
    unsigned char *mine = NULL, *all = NULL, *splitters = NULL;
    int *taken = NULL, *displs = NULL, *idx = NULL, *tmp = NULL, *kind = NULL;
    long long *held = NULL;
    double *sample_weight = NULL;
    if (problem == fine) {
        mine = (unsigned char *)divload_mpi_alloc_((size_t)c * key_len + 1, 1);
        splitters = (unsigned char *)divload_mpi_alloc_((size_t)size * key_len, 1);
        kind = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
        if (rank == root) {
            taken = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
            displs = (int *)divload_mpi_alloc_((size_t)size, sizeof(int));
            held = (long long *)divload_mpi_alloc_((size_t)size, sizeof(long long));
        }
        if (mine == NULL || splitters == NULL || kind == NULL ||
            (rank == root && (taken == NULL || displs == NULL || held == NULL)))
            problem = no_mem;
    }
    int worst = fine;
    MPI_Allreduce(&problem, &worst, 1, MPI_INT, MPI_MAX, part->comm);
    if (worst == fine) {
        for (int k = 0; k < c; k++) {
            const long long at = (2LL * k + 1) * n / (2LL * c);
            memcpy(mine + (size_t)k * key_len, rec + (size_t)at * record_size + key_offset, key_len);
        }
        const long long have = n;
        const int bytes = c * (int)key_len;
        MPI_Gather(&have, 1, MPI_LONG_LONG, held, 1, MPI_LONG_LONG, root, part->comm);
        MPI_Gather(&c, 1, MPI_INT, taken, 1, MPI_INT, root, part->comm);
        int total = 0;
        if (rank == root) {
            for (int r = 0; r < size; r++) {
                displs[r] = total * (int)key_len;
                total += taken[r];
                taken[r] *= (int)key_len;
            }
            all = (unsigned char *)divload_mpi_alloc_((size_t)total * key_len + 1, 1);
            idx = (int *)divload_mpi_alloc_((size_t)total + 1, sizeof(int));
            tmp = (int *)divload_mpi_alloc_((size_t)total + 1, sizeof(int));
            sample_weight = (double *)divload_mpi_alloc_((size_t)total + 1, sizeof(double));
            if (all == NULL || idx == NULL || tmp == NULL || sample_weight == NULL) problem = no_mem;
        }
        MPI_Bcast(&problem, 1, MPI_INT, root, part->comm);
        worst = problem;
        if (worst == fine) {
            MPI_Gatherv(mine, bytes, MPI_BYTE, all, taken, displs, MPI_BYTE, root, part->comm);
            if (rank == root) {
                double records_all = 0.0;
                for (int k = 0; k < total; k++) idx[k] = k;
                divload_mpi_sort_keys_(idx, tmp, total, all, key_len, key_len);
                /* The weight of each sample (by its place in the gather): the records
                   of its rank over the rank's samples. */
                for (int r = 0, at = 0; r < size; r++) {
                    const int got = taken[r] / (int)key_len;
                    for (int k = 0; k < got; k++) sample_weight[at + k] = (double)held[r] / (double)got;
                    at += got;
                    records_all += (double)held[r];
                }
                /* Candidates in key order: 0 is -infinity (estimate 0), q in 1..total the
                   q-th smallest sample key (the weight of the samples before it, plus half
                   its own), total + 1 is +infinity (all records). The estimates do not
                   decrease and neither do the targets, so one walk finds, for each
                   splitter, the candidate closest to its target. */
                int cur = 0;
                double estimate = 0.0, before = 0.0, cumulative = 0.0;
                for (int j = 0; j + 1 < size; j++) {
                    cumulative += (double)part->counts[j];
                    const double target = part->items > 0 ? records_all * (cumulative / (double)part->items) : 0.0;
                    while (cur <= total) {
                        const double w = cur < total ? sample_weight[idx[cur]] : 0.0;
                        const double next = cur < total ? before + w / 2.0 : records_all;
                        const double off_next = next > target ? next - target : target - next;
                        const double off_now = estimate > target ? estimate - target : target - estimate;
                        if (off_next > off_now) break;
                        before += w;
                        estimate = next;
                        cur++;
                    }
                    kind[j] = cur == 0 ? -1 : cur == total + 1 ? 1 : 0;
                    if (kind[j] == 0)
                        memcpy(splitters + (size_t)j * key_len, all + (size_t)idx[cur - 1] * key_len, key_len);
                }
            }
            MPI_Bcast(kind, size, MPI_INT, root, part->comm);
            MPI_Bcast(splitters, size * (int)key_len, MPI_BYTE, root, part->comm);
            int lower = 0;
            for (int j = 0; j + 1 < size; j++) {
                int cut;
                if (kind[j] < 0) {
                    cut = 0;
                } else if (kind[j] > 0) {
                    cut = n;
                } else {
                    int lo = 0, hi = n; /* the first record whose key is not below splitter j */
                    while (lo < hi) {
                        const int mid = lo + (hi - lo) / 2;
                        if (memcmp(rec + (size_t)mid * record_size + key_offset, splitters + (size_t)j * key_len,
                                   key_len) < 0)
                            lo = mid + 1;
                        else
                            hi = mid;
                    }
                    cut = lo;
                }
                if (cut < lower) cut = lower;
                sendcounts[j] = cut - lower;
                lower = cut;
            }
            sendcounts[size - 1] = n - lower;
        }
    }
    free(mine);
    free(all);
    free(splitters);
    free(taken);
    free(displs);
    free(idx);
    free(tmp);
    free(kind);
    free(held);
    free(sample_weight);
    return worst == fine ? DIVLOAD_OK
           : worst == null ? DIVLOAD_NULL_PARAMETER
           : worst == invalid ? DIVLOAD_INVALID_INPUT
                              : DIVLOAD_OUT_OF_MEMORY;
}

/* Makes the counts exact (see above): every rank's `n` records at `in` (each of `type`,
 * sorted, and the ranks' records in rank order one sorted sequence, as after the
 * exchange of a sample sort and a merge) are redistributed so that rank r holds
 * records [displs[r], displs[r] + counts[r]) of that sequence, in order, in `out` (room
 * for my_count records of `type`; not overlapping `in`). `moved` (may be NULL) receives
 * how many records changed rank, the same on every rank.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: DIVLOAD_NULL_PARAMETER for a
 * NULL `part` (on every rank or none), or on any rank NULL `in` with n > 0 or NULL `out`
 * with my_count > 0; DIVLOAD_INVALID_INPUT when n < 0 on any rank, no plan was made, or
 * the records of all ranks are not the last plan's `items`; DIVLOAD_OUT_OF_MEMORY.
 * Collective over the partition's communicator. */
static inline int divload_mpi_partition_rebalance(const divload_mpi_partition *part, const void *in, int n,
                                                  MPI_Datatype type, void *out, long long *moved) {
    if (part == NULL) return DIVLOAD_NULL_PARAMETER;
    const int size = part->size, rank = part->rank;
    const size_t p = (size_t)size;
    const int fine = 0, no_mem = 1, invalid = 2, null = 3;
    int problem = fine;
    if ((in == NULL && n > 0) || (out == NULL && part->my_count > 0)) problem = null;
    else if (n < 0 || part->counts == NULL || part->split < 0) problem = invalid;
    int *held = (int *)divload_mpi_alloc_(p, sizeof(int));
    int *buf = (int *)divload_mpi_alloc_(p, 4 * sizeof(int));
    if (problem == fine && (held == NULL || buf == NULL)) problem = no_mem;
    int worst = fine;
    MPI_Allreduce(&problem, &worst, 1, MPI_INT, MPI_MAX, part->comm);
    if (worst == fine) {
        MPI_Allgather(&n, 1, MPI_INT, held, 1, MPI_INT, part->comm);
        long long total = 0, stay = 0;
        for (int r = 0; r < size; r++) total += held[r];
        if (total != part->items) worst = invalid;
        if (worst == fine) {
            int *sendcounts = buf, *sdispls = buf + p, *recvcounts = buf + 2 * p, *rdispls = buf + 3 * p;
            /* Rank r holds [start[r], start[r] + held[r]) of the sorted sequence and is
               planned [displs[r], displs[r] + counts[r]): each pair of ranks exchanges the
               overlap of the one's stretch with the other's block. */
            long long start_r = 0, my_start = 0;
            for (int r = 0; r < rank; r++) my_start += held[r];
            const long long my_lo = part->displs[rank], my_hi = my_lo + part->counts[rank];
            for (int r = 0; r < size; r++) {
                const long long lo = part->displs[r], hi = lo + part->counts[r];
                const long long send_lo = my_start > lo ? my_start : lo;
                const long long send_hi = my_start + n < hi ? my_start + n : hi;
                sendcounts[r] = send_hi > send_lo ? (int)(send_hi - send_lo) : 0;
                sdispls[r] = send_hi > send_lo ? (int)(send_lo - my_start) : 0;
                const long long recv_lo = start_r > my_lo ? start_r : my_lo;
                const long long recv_hi = start_r + held[r] < my_hi ? start_r + held[r] : my_hi;
                recvcounts[r] = recv_hi > recv_lo ? (int)(recv_hi - recv_lo) : 0;
                rdispls[r] = recv_hi > recv_lo ? (int)(recv_lo - my_lo) : 0;
                const long long keep_lo = start_r > lo ? start_r : lo;
                const long long keep_hi = start_r + held[r] < hi ? start_r + held[r] : hi;
                if (keep_hi > keep_lo) stay += keep_hi - keep_lo;
                start_r += held[r];
            }
            MPI_Alltoallv(in, sendcounts, sdispls, type, out, recvcounts, rdispls, type, part->comm);
            if (moved != NULL) *moved = total - stay;
        }
    }
    free(held);
    free(buf);
    return worst == fine ? DIVLOAD_OK
           : worst == null ? DIVLOAD_NULL_PARAMETER
           : worst == invalid ? DIVLOAD_INVALID_INPUT
                              : DIVLOAD_OUT_OF_MEMORY;
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_PARTITION_H */
