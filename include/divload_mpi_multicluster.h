/* divload_mpi_multicluster.h: several clusters (heien's extended LogP), measured from
 * MPI, written as a document and planned. Part of divload_mpi.h, which includes it.
 * Header-only; hand-written. */
#ifndef DIVLOAD_MPI_MULTICLUSTER_H
#define DIVLOAD_MPI_MULTICLUSTER_H

#include "divload_mpi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Several clusters: heien's extended LogP ("model": "multicluster"), measured by MPI.
 *
 *     divload_mpi_multicluster cal;
 *     divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, DIVLOAD_MPI_COLOUR_HOST, NULL, &cal);
 *     char doc[4096];
 *     size_t len;
 *     divload_mpi_multicluster_json(&cal, "{\"pattern\": \"ring\", \"lattice\": 8192, "
 *                                   "\"flip_time\": 0.55e-6, \"steps\": 20}", 4, doc, sizeof doc, &len);
 *     divload_mpi_multicluster_plan plan;
 *     if (divload_mpi_multicluster_plan_create(&cal, 0, doc, len, &plan) != DIVLOAD_OK) { ... }
 *     MPI_Scatterv(columns, plan.counts, plan.displs, column_type, mine, plan.my_count,
 *                  column_type, 0, MPI_COMM_WORLD);
 *     ...                                       // plan.my_count columns from plan.my_displacement
 *     divload_mpi_multicluster_plan_free(&plan);
 *     divload_mpi_multicluster_free(&cal);
 *
 * Clusters. Ranks with the same colour form a cluster; a rank passing
 * DIVLOAD_MPI_COLOUR_HOST joins the ranks on the same host (MPI_Get_processor_name).
 * Clusters are numbered by their lowest rank (rank 0 is in cluster 0), the ranks of a
 * cluster by rank; the document lists the clusters in that order, so its j-th processor
 * is `processor_rank[j]`. Names: "colour 3" for a colour, the host name for a host.
 *
 * The estimator. For each measured pair of ranks (a, b), b echoes what a sends, a message
 * of s = small_bytes and one of m = large_bytes bytes, `repetitions` timed round trips
 * of each after one untimed one; every figure is the minimum over the repetitions, the
 * time of a transfer nothing interrupted (another process taking the core, a page
 * fault): the cost of the network and the processors, not the noise of the node:
 *   o_s   the time a spends inside MPI_Send of the small message (send overhead);
 *   o_r   the time b spends inside MPI_Recv of a small message it has already seen with
 *         MPI_Probe (receive overhead);
 *   h(n)  half the round trip of an n-byte message.
 * In heien's model (§2, and eqs. 2-3: a border exchange of 4 words costs L + 2o + 4g) a
 * message of n units takes h(n) = L + 2o + n g, so
 *   o = (o_s + o_r) / 2,   g = (h(m) - h(s)) / (m - s) per byte,   L = h(s) - 2o - s g.
 * L and g are taken as 0 if noise makes them negative. Each link kind's L, o and g are
 * the medians over its pairs. Fast pairs: the first two ranks of each cluster of two or
 * more ranks; slow pairs: the first ranks of clusters c and c + 1; at most `max_pairs`
 * of each, measured one pair at a time on a duplicate of `comm` while the other ranks
 * sleep in a barrier (so they leave the cores to the pair on a node with more ranks than
 * cores). The pairs' raw timings are summed over all ranks (each written by one rank),
 * so every rank derives the same numbers.
 *
 * Units. g is measured per byte. heien's g, and the document's "gap", is per word of the
 * application's messages (eqs. 2-3 charge 4g for 4 border spins, eq. 10 g·D·K·F for K·F
 * objects of D words: LogGP's per-word G rather than LogP's gap between messages), so
 * divload_mpi_multicluster_json multiplies it by the word size the caller gives.
 *
 * Links not measured. With a single cluster there is no slow pair: `slow.measured` is 0
 * and the slow link carries the fast link's values. The model never uses the slow link
 * then (a ring of one cluster closes on itself, every processor with two fast
 * neighbours; all-to-all with one cluster has no slow messages), but a what_if addition
 * would: set it by hand before adding one. Likewise, when no cluster has two ranks,
 * `fast.measured` is 0 and the fast link carries the slow values, which a model of
 * one-processor clusters never uses. A single rank measures nothing (all zeros).
 * ------------------------------------------------------------------------------------ */

/* The colour that groups ranks by host name (MPI_Get_processor_name). Other colours
 * must be >= 0. */
#define DIVLOAD_MPI_COLOUR_HOST (-1)
/* Bytes of a cluster's name, NUL included. */
#define DIVLOAD_MPI_NAME_LEN (MPI_MAX_PROCESSOR_NAME + 16)

/* A calibration, the same on every rank of the communicator it was made on. */
typedef struct divload_mpi_multicluster {
    MPI_Comm comm;          /* the communicator (not owned) */
    int size;               /* ranks = processors of the document */
    int clusters;           /* groups found */
    int my_cluster;         /* this rank's cluster */
    int my_index;           /* its index within the cluster */
    int *cluster_of;        /* [size] cluster of each rank */
    int *index_of;          /* [size] index of each rank within its cluster */
    int *cluster_sizes;     /* [clusters] ranks in each cluster */
    int *processor_rank;    /* [size] rank of the document's j-th processor */
    char *names;            /* [clusters * DIVLOAD_MPI_NAME_LEN] names, NUL-terminated */
    divload_mpi_link fast;  /* inside a cluster */
    divload_mpi_link slow;  /* between clusters */
    divload_mpi_calibration_options options; /* as measured, defaults filled in */
} divload_mpi_multicluster;

static inline void divload_mpi_multicluster_free(divload_mpi_multicluster *cal) {
    if (cal == NULL) return;
    free(cal->cluster_of);
    free(cal->index_of);
    free(cal->cluster_sizes);
    free(cal->processor_rank);
    free(cal->names);
    cal->cluster_of = cal->index_of = cal->cluster_sizes = cal->processor_rank = NULL;
    cal->names = NULL;
}

/* Rank keys compared as strings, equal keys by rank (their place in one array). */
static inline int divload_mpi_cmp_key_(const void *a, const void *b) {
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int c = strcmp(x, y);
    return c != 0 ? c : (x > y) - (x < y);
}

/* Groups the ranks of `comm` into clusters by `colour` (>= 0, or DIVLOAD_MPI_COLOUR_HOST
 * to group by host name; ranks may mix the two) and measures heien's L, o, g inside
 * clusters (fast) and between them (slow) by ping-pong, as described above. `options`
 * may be NULL for the defaults and is read on rank 0 only.
 *
 * Returns DIVLOAD_OK, DIVLOAD_INVALID_INPUT (a colour below 0 other than
 * DIVLOAD_MPI_COLOUR_HOST on any rank, or options out of range) or
 * DIVLOAD_OUT_OF_MEMORY, the same on every rank; on failure `cal` holds nothing to free.
 * A NULL `cal` returns DIVLOAD_NULL_PARAMETER at once (pass it on every rank or none).
 * Memory: about DIVLOAD_MPI_NAME_LEN bytes per rank for the names, during the call.
 * Collective over `comm`; free with divload_mpi_multicluster_free (local). */
static inline int divload_mpi_multicluster_calibrate(MPI_Comm comm, int colour,
                                                     const divload_mpi_calibration_options *options,
                                                     divload_mpi_multicluster *cal) {
    if (cal == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(cal, 0, sizeof *cal);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    cal->comm = comm;
    cal->size = size;

    int opt[4] = {8, 1 << 18, 21, 8};
    if (rank == 0 && options != NULL) {
        const int given[4] = {options->small_bytes, options->large_bytes, options->repetitions, options->max_pairs};
        for (int i = 0; i < 4; i++)
            if (given[i] != 0) opt[i] = given[i];
    }
    MPI_Bcast(opt, 4, MPI_INT, 0, comm);
    cal->options.small_bytes = opt[0];
    cal->options.large_bytes = opt[1];
    cal->options.repetitions = opt[2];
    cal->options.max_pairs = opt[3];
    int bad = colour < 0 && colour != DIVLOAD_MPI_COLOUR_HOST;
    if (opt[0] < 1 || opt[1] <= opt[0] || opt[2] < 1 || opt[3] < 1) bad = 1;
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, comm);
    if (any_bad) return DIVLOAD_INVALID_INPUT;

    const size_t n = (size_t)size, len = DIVLOAD_MPI_NAME_LEN;
    char key[DIVLOAD_MPI_NAME_LEN];
    memset(key, 0, sizeof key);
    if (colour == DIVLOAD_MPI_COLOUR_HOST) {
        int got = 0;
        key[0] = 'h';
        MPI_Get_processor_name(key + 1, &got);
    } else {
        snprintf(key, sizeof key, "ccolour %d", colour);
    }
    const size_t max_pairs = (size_t)opt[3], pair_slots = 2 * (max_pairs < n ? max_pairs : n);
    char *keys = (char *)divload_mpi_alloc_(n, len);
    const char **sorted = (const char **)divload_mpi_alloc_(n, sizeof *sorted);
    int *group = (int *)divload_mpi_alloc_(n, sizeof(int));
    int *cluster_of_group = (int *)divload_mpi_alloc_(n, sizeof(int));
    int *offset = (int *)divload_mpi_alloc_(n, sizeof(int));
    int *fast_pair = (int *)divload_mpi_alloc_(pair_slots, sizeof(int));
    int *slow_pair = (int *)divload_mpi_alloc_(pair_slots, sizeof(int));
    cal->cluster_of = (int *)divload_mpi_alloc_(n, sizeof(int));
    cal->index_of = (int *)divload_mpi_alloc_(n, sizeof(int));
    cal->processor_rank = (int *)divload_mpi_alloc_(n, sizeof(int));
    cal->cluster_sizes = (int *)divload_mpi_alloc_(n, sizeof(int));
    int ok = keys && sorted && group && cluster_of_group && offset && fast_pair && slow_pair && cal->cluster_of &&
             cal->index_of && cal->processor_rank && cal->cluster_sizes;
    int all_ok = divload_mpi_all_ok_(ok, comm);
    if (all_ok) MPI_Allgather(key, (int)len, MPI_CHAR, keys, (int)len, MPI_CHAR, comm);

    /* Equal keys meet in sorted order: O(P log P) for any number of clusters. */
    int groups = 0, clusters = 0;
    for (size_t r = 0; all_ok && r < n; r++) {
        keys[r * len + len - 1] = '\0';
        sorted[r] = keys + r * len;
    }
    if (all_ok) qsort(sorted, n, sizeof *sorted, divload_mpi_cmp_key_);
    for (size_t k = 0; all_ok && k < n; k++) {
        if (k == 0 || strcmp(sorted[k], sorted[k - 1]) != 0) cluster_of_group[groups++] = -1;
        group[(sorted[k] - keys) / (ptrdiff_t)len] = groups - 1;
    }
    /* Walking up the ranks meets each group first at its lowest rank: clusters are
       numbered in that order, and the ranks of a cluster by rank. */
    for (int r = 0; all_ok && r < size; r++) {
        int *c = &cluster_of_group[group[r]];
        if (*c < 0) *c = clusters++;
        cal->cluster_of[r] = *c;
        cal->index_of[r] = cal->cluster_sizes[*c]++;
    }
    cal->clusters = clusters;
    /* The document lists cluster 0's processors first: offsets are prefix sums. */
    for (int c = 0, at = 0; all_ok && c < clusters; c++) {
        offset[c] = at;
        at += cal->cluster_sizes[c];
    }
    for (int r = 0; all_ok && r < size; r++) {
        cal->processor_rank[offset[cal->cluster_of[r]] + cal->index_of[r]] = r;
    }
    if (all_ok) {
        cal->my_cluster = cal->cluster_of[rank];
        cal->my_index = cal->index_of[rank];
        cal->names = (char *)divload_mpi_alloc_((size_t)clusters, len);
    }
    for (int c = 0; cal->names != NULL && c < clusters; c++) {
        const char *k = keys + (size_t)cal->processor_rank[offset[c]] * len;
        snprintf(cal->names + (size_t)c * len, len, "%s", k + 1);
    }

    /* Fast pairs inside clusters of two or more, slow pairs between neighbouring clusters. */
    int fast = 0, slow = 0;
    for (int c = 0; all_ok && c < clusters && (size_t)fast < max_pairs; c++) {
        if (cal->cluster_sizes[c] < 2) continue;
        fast_pair[2 * fast] = cal->processor_rank[offset[c]];
        fast_pair[2 * fast + 1] = cal->processor_rank[offset[c] + 1];
        fast++;
    }
    for (int c = 0; all_ok && c + 1 < clusters && (size_t)slow < max_pairs; c++) {
        slow_pair[2 * slow] = cal->processor_rank[offset[c]];
        slow_pair[2 * slow + 1] = cal->processor_rank[offset[c + 1]];
        slow++;
    }
    const int pairs = fast + slow, reps = opt[2];
    /* One element more than needed: with no pairs, calloc(0) may return NULL. The raw
       timings are summed by one MPI_Allreduce, whose count is an int: more pairs than
       that (the same number on every rank) fail as memory would. */
    const int countable = 4 * (size_t)pairs <= (size_t)INT_MAX;
    double *raw = countable ? (double *)divload_mpi_alloc_(4 * (size_t)pairs + 1, sizeof(double)) : NULL;
    double *samples = (double *)divload_mpi_alloc_(2 * (size_t)reps, sizeof(double));
    double *work = countable ? (double *)divload_mpi_alloc_(5 * (size_t)pairs + 1, sizeof(double)) : NULL;
    char *buf = (char *)divload_mpi_alloc_((size_t)opt[1], 1);
    MPI_Comm dup = MPI_COMM_NULL;
    ok = all_ok && cal->names && raw && samples && work && buf;
    all_ok = divload_mpi_all_ok_(ok, comm);
    if (all_ok) MPI_Comm_dup(comm, &dup);
    for (int p = 0; all_ok && p < pairs; p++) {
        const int *ab = p < fast ? fast_pair + 2 * p : slow_pair + 2 * (p - fast);
        /* One pair at a time: on shared nodes, concurrent pairs would time each other; the
           others wait for the next pair (or the end) in a barrier that sleeps. */
        divload_mpi_quiet_barrier_(dup);
        divload_mpi_ping_pong_(dup, rank, ab[0], ab[1], &cal->options, buf, samples, raw + 4 * p);
    }
    if (all_ok) {
        divload_mpi_quiet_barrier_(dup);
        MPI_Allreduce(MPI_IN_PLACE, raw, 4 * pairs, MPI_DOUBLE, MPI_SUM, dup);
        MPI_Comm_free(&dup);
        cal->fast = divload_mpi_estimate_(raw, fast, &cal->options, work);
        cal->slow = divload_mpi_estimate_(raw + 4 * fast, slow, &cal->options, work);
        if (!cal->slow.measured) {
            cal->slow = cal->fast;
            cal->slow.pairs = cal->slow.measured = 0;
        } else if (!cal->fast.measured) {
            cal->fast = cal->slow;
            cal->fast.pairs = cal->fast.measured = 0;
        }
    }
    free(keys);
    free(sorted);
    free(group);
    free(cluster_of_group);
    free(offset);
    free(fast_pair);
    free(slow_pair);
    free(raw);
    free(samples);
    free(work);
    free(buf);
    if (!all_ok) {
        divload_mpi_multicluster_free(cal);
        return DIVLOAD_OUT_OF_MEMORY;
    }
    return DIVLOAD_OK;
}

static inline void divload_mpi_put_link_(divload_mpi_text_ *t, const char *name, const divload_mpi_link *l,
                                         size_t word_bytes) {
    divload_mpi_put_(t, "\"%s\": {\"latency\": ", name);
    divload_mpi_put_double_(t, l->latency);
    divload_mpi_put_(t, ", \"overhead\": ");
    divload_mpi_put_double_(t, l->overhead);
    divload_mpi_put_(t, ", \"gap\": ");
    divload_mpi_put_double_(t, l->gap * (double)word_bytes);
    divload_mpi_put_(t, "}");
}

static inline void divload_mpi_put_document_(divload_mpi_text_ *t, const divload_mpi_multicluster *cal,
                                             const char *application, size_t word_bytes) {
    const divload_mpi_calibration_options *o = &cal->options;
    divload_mpi_put_(t, "{\"version\": 1, \"model\": \"multicluster\",\n \"comment\": \"measured by "
                        "divload_mpi_multicluster_calibrate on %d ranks: fast links over %d pair(s), slow links "
                        "over %d pair(s), %d round trips of %d and %d bytes each; gap per word of %zu bytes",
                     cal->size, cal->fast.pairs, cal->slow.pairs, o->repetitions, o->small_bytes, o->large_bytes,
                     word_bytes);
    if (!cal->slow.measured && cal->size > 1)
        divload_mpi_put_(t, "; slow link not measured (one cluster): it repeats the fast link");
    if (!cal->fast.measured && cal->size > 1)
        divload_mpi_put_(t, "; fast link not measured (no cluster of two ranks): it repeats the slow link");
    divload_mpi_put_(t, "\",\n \"clusters\": [");
    for (int c = 0; c < cal->clusters; c++) {
        divload_mpi_put_(t, "%s{\"name\": ", c ? ",\n   " : "");
        divload_mpi_put_string_(t, cal->names + (size_t)c * DIVLOAD_MPI_NAME_LEN);
        divload_mpi_put_(t, ", \"processors\": %d}", cal->cluster_sizes[c]);
    }
    divload_mpi_put_(t, "],\n \"links\": {");
    divload_mpi_put_link_(t, "fast", &cal->fast, word_bytes);
    divload_mpi_put_(t, ",\n           ");
    divload_mpi_put_link_(t, "slow", &cal->slow, word_bytes);
    divload_mpi_put_(t, "},\n \"application\": %s}\n", application);
}

/* Writes a multicluster document from the calibration: its clusters, the fast and slow
 * links (gap converted to seconds per word of `word_bytes` bytes, the unit of the
 * application's messages), a comment saying how they were measured (and which link was
 * not), and `application` copied verbatim: a JSON object as the document's
 * "application", e.g. {"pattern": "ring", "lattice": 8192, "flip_time": 0.55e-6,
 * "steps": 20}, {"pattern": "all_to_all", "objects": 10000000, "chunk": 4096,
 * "sort_time": 3.42e-3, "words_per_object": 25} or a custom one (see docs/models/multicluster.md). It is
 * checked when the document is planned (divload_plan_json, or the plan helper below).
 *
 * Like snprintf into `out` of `out_len` bytes, NUL-terminated: on DIVLOAD_OK `*out_n` is
 * the length without the NUL; on DIVLOAD_BUFFER_TOO_SMALL nothing is written and `*out_n`
 * is the size `out` needs, NUL included (`out` may be NULL when `out_len` is 0, to ask).
 * DIVLOAD_NULL_PARAMETER for a NULL `cal`, `application` or `out_n` (or `out` with
 * `out_len` > 0); DIVLOAD_INVALID_INPUT for `word_bytes` 0, an empty `application`, or a
 * calibration without clusters or with a link time that is not finite and >= 0. Local:
 * call it on any rank. Numbers have a '.' whatever LC_NUMERIC says (the locale's decimal
 * point, read with localeconv(), is replaced: do not call setlocale in another thread
 * meanwhile). In cluster names, each byte that does not start a valid UTF-8 sequence (a
 * host name in Latin-1, say) is read as Latin-1 and written as \u00XX; quotes,
 * backslashes and control characters are escaped. */
static inline int divload_mpi_multicluster_json(const divload_mpi_multicluster *cal, const char *application,
                                                size_t word_bytes, char *out, size_t out_len, size_t *out_n) {
    if (cal == NULL || application == NULL || out_n == NULL || (out == NULL && out_len > 0))
        return DIVLOAD_NULL_PARAMETER;
    if (word_bytes == 0 || application[0] == '\0' || cal->clusters < 1 || cal->names == NULL ||
        cal->cluster_sizes == NULL)
        return DIVLOAD_INVALID_INPUT;
    const divload_mpi_link *links[2] = {&cal->fast, &cal->slow};
    for (int i = 0; i < 2; i++) {
        const double v[3] = {links[i]->latency, links[i]->overhead, links[i]->gap * (double)word_bytes};
        for (int k = 0; k < 3; k++)
            if (!isfinite(v[k]) || v[k] < 0.0) return DIVLOAD_INVALID_INPUT;
    }
    divload_mpi_text_ count = {NULL, 0, 0};
    divload_mpi_put_document_(&count, cal, application, word_bytes);
    if (count.len + 1 > out_len) {
        *out_n = count.len + 1;
        return DIVLOAD_BUFFER_TOO_SMALL;
    }
    divload_mpi_text_ text = {out, out_len, 0};
    divload_mpi_put_document_(&text, cal, application, word_bytes);
    *out_n = text.len;
    return DIVLOAD_OK;
}

/* A multicluster plan, known on every rank of the calibration's communicator. Counts
 * and displacements are by rank, ready for MPI_Scatterv / MPI_Allgatherv on that
 * communicator; blocks are contiguous along the ring (clusters in the plan's ring order,
 * ranks within a cluster by rank), so a ring code's neighbours hold the blocks just
 * before and after its own. */
typedef struct divload_mpi_multicluster_plan {
    MPI_Comm comm;         /* the calibration's communicator (not owned) */
    int root;              /* the rank that planned */
    int size;              /* ranks */
    int my_count;          /* units this rank gets */
    int my_displacement;   /* its first unit */
    double my_step_time;   /* its predicted step time, seconds */
    int my_participates;   /* 0 when the plan leaves it out (count 0) */
    int *counts;           /* [size] units of each rank */
    int *displs;           /* [size] first unit of each rank */
    double *step_times;    /* [size] predicted step time of each rank */
    int *participates;     /* [size] 1 when the rank takes part */
    divload_multicluster_summary summary; /* run time, step time, EVEN split, ... */
} divload_mpi_multicluster_plan;

static inline void divload_mpi_multicluster_plan_free(divload_mpi_multicluster_plan *plan) {
    if (plan == NULL) return;
    free(plan->counts);
    free(plan->displs);
    free(plan->step_times);
    free(plan->participates);
    plan->counts = plan->displs = plan->participates = NULL;
    plan->step_times = NULL;
}

/* Plans the multicluster document `json` (`json_len` bytes; read on `root` only, others
 * may pass NULL) with libdivload's divload_plan_multicluster on `root` and broadcasts
 * every rank's count, displacement and predicted step time, and the summary. The
 * document's processors must be the calibration's ranks: its clusters those of `cal`, in
 * order, with the same sizes (as divload_mpi_multicluster_json writes them); the
 * application and the links may be anything.
 *
 * Returns DIVLOAD_OK or a status, the same on every rank: the library's (DIVLOAD_JSON for
 * a malformed document, ...; divload_last_error_message() explains on the root),
 * DIVLOAD_INVALID_INPUT for a root out of range or a document whose processors are not
 * the calibration's ranks, DIVLOAD_OVERFLOW for more than INT_MAX units (MPI counts are
 * int), DIVLOAD_NULL_PARAMETER for a NULL `json` on the root. A NULL `cal` or `plan`
 * returns DIVLOAD_NULL_PARAMETER at once (on every rank or none). On failure `plan`
 * holds nothing to free. Collective over cal->comm; free with
 * divload_mpi_multicluster_plan_free (local). */
static inline int divload_mpi_multicluster_plan_create(const divload_mpi_multicluster *cal, int root,
                                                       const char *json, size_t json_len,
                                                       divload_mpi_multicluster_plan *plan) {
    if (cal == NULL || plan == NULL) return DIVLOAD_NULL_PARAMETER;
    memset(plan, 0, sizeof *plan);
    int rank, status = DIVLOAD_OK;
    const int size = cal->size;
    MPI_Comm_rank(cal->comm, &rank);
    plan->comm = cal->comm;
    plan->root = root;
    plan->size = size;
    if (root < 0 || root >= size) return DIVLOAD_INVALID_INPUT; /* the same on every rank */
    const size_t n = (size_t)size;
    plan->counts = (int *)divload_mpi_alloc_(n, sizeof(int));
    plan->displs = (int *)divload_mpi_alloc_(n, sizeof(int));
    plan->step_times = (double *)divload_mpi_alloc_(n, sizeof(double));
    plan->participates = (int *)divload_mpi_alloc_(n, sizeof(int));
    divload_multicluster_processor *procs =
        rank == root ? (divload_multicluster_processor *)divload_mpi_alloc_(n, sizeof *procs) : NULL;
    int ok = plan->counts && plan->displs && plan->step_times && plan->participates && (rank != root || procs);
    int all_ok = divload_mpi_all_ok_(ok, cal->comm);
    if (!all_ok) {
        free(procs);
        divload_mpi_multicluster_plan_free(plan);
        return DIVLOAD_OUT_OF_MEMORY;
    }
    if (rank == root) {
        size_t got = 0;
        status = json == NULL ? (int)DIVLOAD_NULL_PARAMETER
                              : (int)divload_plan_multicluster(json, json_len, procs, n, &got, &plan->summary);
        /* More processors than ranks: the document is not this calibration's. */
        if (status == DIVLOAD_BUFFER_TOO_SMALL || (status == DIVLOAD_OK && got != n)) status = DIVLOAD_INVALID_INPUT;
        if (status == DIVLOAD_OK && plan->summary.units > (uint64_t)INT_MAX) status = DIVLOAD_OVERFLOW;
        for (size_t j = 0; status == DIVLOAD_OK && j < n; j++) {
            const int r = cal->processor_rank[j];
            if (procs[j].cluster != (size_t)cal->cluster_of[r] || procs[j].index != (uint32_t)cal->index_of[r]) {
                status = DIVLOAD_INVALID_INPUT;
                break;
            }
            plan->counts[r] = (int)procs[j].count;
            plan->displs[r] = (int)procs[j].displacement;
            plan->step_times[r] = procs[j].step_time;
            plan->participates[r] = procs[j].participates ? 1 : 0;
        }
    }
    free(procs);
    MPI_Bcast(&status, 1, MPI_INT, root, cal->comm);
    if (status != DIVLOAD_OK) {
        divload_mpi_multicluster_plan_free(plan);
        return status;
    }
    MPI_Bcast(plan->counts, size, MPI_INT, root, cal->comm);
    MPI_Bcast(plan->displs, size, MPI_INT, root, cal->comm);
    MPI_Bcast(plan->step_times, size, MPI_DOUBLE, root, cal->comm);
    MPI_Bcast(plan->participates, size, MPI_INT, root, cal->comm);
    /* Plain data; all ranks of one job share its layout. */
    MPI_Bcast(&plan->summary, (int)sizeof plan->summary, MPI_BYTE, root, cal->comm);
    plan->my_count = plan->counts[rank];
    plan->my_displacement = plan->displs[rank];
    plan->my_step_time = plan->step_times[rank];
    plan->my_participates = plan->participates[rank];
    return DIVLOAD_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* DIVLOAD_MPI_MULTICLUSTER_H */
