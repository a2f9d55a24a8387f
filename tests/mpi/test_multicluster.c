/* MPI test of the multi-cluster calibration and plan in divload_mpi.h under a real mpirun
 * (tests/mpi/run: 2, 4 and 8 ranks, OpenMPI and MPICH), on one machine with the ranks
 * grouped by colour.
 *
 * For several groupings (interleaved, halves, one rank apart, by host name: a single
 * cluster here, and host and colour mixed) every rank checks that the clusters follow
 * the colours, that the links it was told are measured have finite, positive L, o and g
 * (measured again after a pause, at most 5 times, when a node busy with other jobs
 * makes one come out 0) and that an unmeasured one repeats the other, and that every rank holds the same
 * numbers. The document written from the calibration must be accepted by
 * divload_plan_json; the plan helper's counts must sum to the load on every rank, agree
 * on every rank, equal divload_plan_json's and divload_plan_multicluster's for the same
 * document, and carry every unit to its rank through MPI_Scatterv and back to all through
 * MPI_Allgatherv. Bad colours, options, documents and roots fail on every rank with the
 * same status. The writer escapes names that are not valid UTF-8 byte by byte (as
 * Latin-1) and writes the same document under locales whose decimal point is a comma or
 * two bytes (made by tests/mpi/run; skipped, with a message, where it cannot make them).
 * Rank 0 prints the measured links. Exit status 0 only if every rank passed. */
#include "divload_mpi.h"
#include "check.h"

#include <locale.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>

/* Calibrations per grouping before a link that stays 0 fails the test. */
#define ATTEMPTS 3


enum grouping { INTERLEAVED, HALVES, LAST_APART, BY_HOST, MIXED, GROUPINGS };
static const char *const GROUPING_NAMES[GROUPINGS] = {"rank % 2", "halves", "last rank apart", "host name",
                                                      "rank 0 by host, others colour 5"};

static int colour_of(enum grouping g, int r) {
    switch (g) {
    case INTERLEAVED: return r % 2;
    case HALVES: return r < (size_ + 1) / 2 ? 10 : 20;
    case LAST_APART: return r == size_ - 1 ? 7 : 3;
    case BY_HOST: return DIVLOAD_MPI_COLOUR_HOST;
    default: return r == 0 ? DIVLOAD_MPI_COLOUR_HOST : 5;
    }
}

/* The clusters the calibration must find, from the colours alone (every rank is on this
 * one host): numbered by their lowest rank, ranks within by rank. */
static void expected_clusters(enum grouping g, int *cluster_of, int *index_of, int *clusters) {
    int n = 0;
    for (int r = 0; r < size_; r++) {
        int c = -1;
        for (int q = 0; q < r && c < 0; q++)
            if (colour_of(g, q) == colour_of(g, r)) c = cluster_of[q];
        if (c < 0) c = n++;
        cluster_of[r] = c;
        index_of[r] = 0;
        for (int q = 0; q < r; q++) index_of[r] += cluster_of[q] == c;
    }
    *clusters = n;
}

/* Every rank holds the same value. */
static int same_everywhere(double v) {
    double lo, hi;
    MPI_Allreduce(&v, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi && lo == v;
}

/* What a calibration must give whatever the load: finite, non-negative parameters (the
   estimator clamps a negative L or g to 0, which a document accepts) and a round trip
   that takes time. */
static int sane_link(const divload_mpi_link *l) {
    return isfinite(l->latency) && l->latency >= 0 && isfinite(l->overhead) && l->overhead >= 0 &&
           isfinite(l->gap) && l->gap >= 0 && l->send_overhead >= 0 && l->receive_overhead >= 0 &&
           l->latency + 2 * l->overhead > 0;
}

/* What an idle node gives: every parameter positive. Several ranks sharing a core (8 ranks
   on 2 cores here) can lose every round trip to a scheduler time slice (L of
   milliseconds, g of 0); that is measured again, but is not a failure. */
static int plausible_link(const divload_mpi_link *l) {
    return sane_link(l) && l->latency > 0 && l->overhead > 0 && l->gap > 0;
}

static void check_calibration(enum grouping g, const divload_mpi_multicluster *cal) {
    int *cluster_of = (int *)malloc(sizeof(int) * (size_t)size_);
    int *index_of = (int *)malloc(sizeof(int) * (size_t)size_);
    int clusters = 0, biggest = 0;
    expected_clusters(g, cluster_of, index_of, &clusters);
    CHECK(cal->size == size_ && cal->clusters == clusters);
    for (int r = 0; r < size_ && cal->clusters == clusters; r++) {
        CHECK(cal->cluster_of[r] == cluster_of[r] && cal->index_of[r] == index_of[r]);
        const int j = cal->processor_rank[r];
        CHECK(j >= 0 && j < size_);
    }
    CHECK(cal->my_cluster == cluster_of[rank_] && cal->my_index == index_of[rank_]);
    /* processor_rank lists cluster 0's ranks first, each cluster's by rank. */
    for (int j = 1; j < size_; j++) {
        const int a = cal->processor_rank[j - 1], b = cal->processor_rank[j];
        CHECK(cal->cluster_of[a] < cal->cluster_of[b] || (cal->cluster_of[a] == cal->cluster_of[b] && a < b));
    }
    for (int c = 0; c < cal->clusters; c++) {
        int n = 0;
        for (int r = 0; r < size_; r++) n += cluster_of[r] == c;
        CHECK(cal->cluster_sizes[c] == n);
        if (n > biggest) biggest = n;
        const char *name = cal->names + (size_t)c * DIVLOAD_MPI_NAME_LEN;
        int first = 0;
        while (cluster_of[first] != c) first++;
        const int colour = colour_of(g, first);
        if (colour == DIVLOAD_MPI_COLOUR_HOST) {
            char host[MPI_MAX_PROCESSOR_NAME];
            int len = 0;
            MPI_Get_processor_name(host, &len);
            CHECK(strcmp(name, host) == 0);
        } else {
            char expect[32];
            snprintf(expect, sizeof expect, "colour %d", colour);
            CHECK(strcmp(name, expect) == 0);
        }
    }
    const divload_mpi_calibration_options *o = &cal->options;
    CHECK(o->small_bytes == 8 && o->large_bytes == 262144 && o->repetitions == 21 && o->max_pairs == 8);

    /* Measured exactly when there is a pair to measure; an unmeasured link repeats the
       other one. */
    CHECK(cal->fast.measured == (biggest >= 2) && cal->slow.measured == (cal->clusters >= 2));
    CHECK(cal->slow.pairs == (cal->clusters - 1 < 8 ? cal->clusters - 1 : 8));
    if (cal->fast.measured) CHECK(sane_link(&cal->fast));
    if (cal->slow.measured) CHECK(sane_link(&cal->slow));
    if (!cal->slow.measured && cal->fast.measured) {
        CHECK(cal->slow.pairs == 0 && cal->slow.latency == cal->fast.latency);
        CHECK(cal->slow.overhead == cal->fast.overhead && cal->slow.gap == cal->fast.gap);
    }
    if (!cal->fast.measured && cal->slow.measured) {
        CHECK(cal->fast.pairs == 0 && cal->fast.latency == cal->slow.latency);
        CHECK(cal->fast.overhead == cal->slow.overhead && cal->fast.gap == cal->slow.gap);
    }
    const divload_mpi_link *links[2] = {&cal->fast, &cal->slow};
    for (int i = 0; i < 2; i++) {
        CHECK(same_everywhere(links[i]->latency) && same_everywhere(links[i]->overhead));
        CHECK(same_everywhere(links[i]->gap) && same_everywhere(links[i]->send_overhead));
        CHECK(same_everywhere(links[i]->receive_overhead));
    }
    free(cluster_of);
    free(index_of);
}

/* The writer: snprintf-style sizes, nothing written when the buffer is too small. */
static char *write_document(const divload_mpi_multicluster *cal, const char *application, size_t word_bytes) {
    size_t needed = 0, len = 0;
    CHECK(divload_mpi_multicluster_json(cal, application, word_bytes, NULL, 0, &needed) == DIVLOAD_BUFFER_TOO_SMALL);
    char *doc = (char *)malloc(needed);
    if (doc == NULL) return NULL;
    memset(doc, 'x', needed);
    size_t untouched = 7;
    CHECK(divload_mpi_multicluster_json(cal, application, word_bytes, doc, needed - 1, &untouched) ==
          DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(untouched == needed);
    for (size_t i = 0; i < needed; i++) CHECK(doc[i] == 'x');
    CHECK(divload_mpi_multicluster_json(cal, application, word_bytes, doc, needed, &len) == DIVLOAD_OK);
    CHECK(len + 1 == needed && strlen(doc) == len);
    return doc;
}

static void check_plan(const divload_mpi_multicluster *cal, const char *doc, uint64_t units, int root) {
    /* The document is accepted by the library's universal entry point. */
    static char result[1 << 16];
    size_t result_len = 0;
    CHECK(divload_plan_json(doc, strlen(doc), result, sizeof result, &result_len) == DIVLOAD_OK);
    CHECK(strstr(result, "\"model\":\"multicluster\"") != NULL);

    divload_mpi_multicluster_plan plan;
    const int st = divload_mpi_multicluster_plan_create(cal, root, rank_ == root ? doc : NULL,
                                                        rank_ == root ? strlen(doc) : 0, &plan);
    CHECK(st == DIVLOAD_OK);
    if (st != DIVLOAD_OK) return;
    CHECK(plan.summary.units == units && plan.summary.processors == (size_t)size_);
    uint64_t sum = 0;
    for (int r = 0; r < size_; r++) {
        CHECK(plan.counts[r] >= 0 && plan.displs[r] >= 0);
        sum += (uint64_t)plan.counts[r];
        CHECK(same_everywhere(plan.counts[r]) && same_everywhere(plan.displs[r]));
        CHECK(same_everywhere(plan.step_times[r]));
        if (plan.participates[r]) CHECK(plan.step_times[r] > 0 && plan.step_times[r] <= plan.summary.step_time);
    }
    CHECK(sum == units);
    CHECK(plan.my_count == plan.counts[rank_] && plan.my_displacement == plan.displs[rank_]);
    CHECK(plan.my_step_time == plan.step_times[rank_] && plan.my_participates == plan.participates[rank_]);
    CHECK(same_everywhere(plan.summary.makespan) && plan.summary.lower_bound <= plan.summary.makespan);

    /* The same counts as the library's plan of the same document, on this rank. */
    divload_multicluster_processor *procs = (divload_multicluster_processor *)malloc(sizeof *procs * (size_t)size_);
    size_t n = 0;
    divload_multicluster_summary s;
    CHECK(divload_plan_multicluster(doc, strlen(doc), procs, (size_t)size_, &n, &s) == DIVLOAD_OK);
    CHECK(n == (size_t)size_ && s.makespan == plan.summary.makespan);
    for (size_t j = 0; j < n && j < (size_t)size_; j++) {
        const int r = cal->processor_rank[j];
        CHECK(procs[j].count == (uint64_t)plan.counts[r] && procs[j].displacement == (uint64_t)plan.displs[r]);
        CHECK(procs[j].step_time == plan.step_times[r]);
        char row[200];
        snprintf(row, sizeof row, "\"rank\":%zu,\"fast_links\":%u,\"count\":%d,\"displacement\":%d,", j,
                 (unsigned)procs[j].fast_links, plan.counts[r], plan.displs[r]);
        CHECK(strstr(result, row) != NULL);
    }
    free(procs);

    /* Every unit reaches its rank with MPI_Scatterv and every rank with MPI_Allgatherv. */
    int *all = (int *)malloc(sizeof(int) * (size_t)units);
    int *mine = (int *)malloc(sizeof(int) * (size_t)plan.my_count + 1);
    for (uint64_t u = 0; u < units; u++) all[u] = rank_ == root ? (int)u : -1;
    MPI_Scatterv(all, plan.counts, plan.displs, MPI_INT, mine, plan.my_count, MPI_INT, root, MPI_COMM_WORLD);
    for (int k = 0; k < plan.my_count; k++) CHECK(mine[k] == plan.my_displacement + k);
    for (uint64_t u = 0; u < units; u++) all[u] = -1;
    MPI_Allgatherv(mine, plan.my_count, MPI_INT, all, plan.counts, plan.displs, MPI_INT, MPI_COMM_WORLD);
    for (uint64_t u = 0; u < units; u++) CHECK(all[u] == (int)u);
    free(all);
    free(mine);
    divload_mpi_multicluster_plan_free(&plan);
    CHECK(plan.counts == NULL);
}

static const char RING[] = "{\"pattern\": \"ring\", \"lattice\": 4096, \"flip_time\": 0.55e-6, \"steps\": 20}";
static const char SORT[] =
    "{\"pattern\": \"all_to_all\", \"objects\": 100000, \"chunk\": 512, \"sort_time\": 1e-4, \"words_per_object\": 25}";

static void report(enum grouping g, const divload_mpi_multicluster *cal) {
    if (rank_ != 0) return;
    printf("  %d ranks, %s: %d cluster(s)\n", size_, GROUPING_NAMES[g], cal->clusters);
    const divload_mpi_link *links[2] = {&cal->fast, &cal->slow};
    for (int i = 0; i < 2; i++) {
        const divload_mpi_link *l = links[i];
        printf("    %s: L %.3g us, o %.3g us (send %.3g, receive %.3g), g %.3g ns/byte = %.3g GB/s, %d pair(s)%s\n",
               i ? "slow" : "fast", 1e6 * l->latency, 1e6 * l->overhead, 1e6 * l->send_overhead,
               1e6 * l->receive_overhead, 1e9 * l->gap, l->gap > 0 ? 1e-9 / l->gap : 0.0, l->pairs,
               l->measured ? "" : " (not measured: repeats the other link)");
    }
}

/* A calibration made by hand, two clusters named `first` and "b", for the writer alone. */
static char *hand_made_document(const char *first, double latency) {
    static char names[2 * DIVLOAD_MPI_NAME_LEN];
    static int sizes[2] = {2, 2};
    memset(names, 0, sizeof names);
    snprintf(names, DIVLOAD_MPI_NAME_LEN, "%s", first);
    snprintf(names + DIVLOAD_MPI_NAME_LEN, DIVLOAD_MPI_NAME_LEN, "b");
    divload_mpi_multicluster cal;
    memset(&cal, 0, sizeof cal);
    cal.size = 4;
    cal.clusters = 2;
    cal.names = names;
    cal.cluster_sizes = sizes;
    cal.fast.latency = latency;
    cal.fast.overhead = 1.25e-7;
    cal.fast.gap = 0.1e-9;
    cal.fast.measured = 1;
    cal.fast.pairs = 2;
    cal.slow = cal.fast;
    cal.slow.latency = 1234.5;
    cal.options.small_bytes = 8;
    cal.options.large_bytes = 1 << 18;
    cal.options.repetitions = 21;
    cal.options.max_pairs = 8;
    return write_document(&cal, RING, 4);
}

/* The document parses (divload_plan_json) and holds `needle`. */
static void check_document(const char *doc, const char *needle) {
    static char result[1 << 16];
    size_t n = 0;
    CHECK(doc != NULL);
    if (doc == NULL) return;
    const int st = divload_plan_json(doc, strlen(doc), result, sizeof result, &n);
    CHECK(st == DIVLOAD_OK);
    if (st != DIVLOAD_OK && rank_ == 0) {
        char msg[256];
        divload_last_error_message(msg, sizeof msg);
        fprintf(stderr, "rank 0: %s\nin the document:\n%s", msg, doc);
    }
    if (strstr(doc, needle) == NULL) {
        fprintf(stderr, "rank %d: expected %s in the document:\n%s", rank_, needle, doc);
        errors++;
    }
}

/* The writer on names that are not valid UTF-8 (a host name need not be) and under
 * locales whose decimal point is not '.': the document must parse either way. */
static void check_writer_text(void) {
    static const struct {
        const char *name, *written;
    } names[] = {
        {"caf\xc3\xa9", "\"caf\xc3\xa9\""},                /* valid UTF-8: as is */
        {"caf\xe9", "\"caf\\u00e9\""},                     /* Latin-1 é */
        {"\xf0\x9f\x96\xa5 h", "\"\xf0\x9f\x96\xa5 h\""},  /* four bytes */
        {"a\xc0\xaf", "\"a\\u00c0\\u00af\""},              /* overlong '/' */
        {"\xed\xa0\x80x", "\"\\u00ed\\u00a0\\u0080x\""},   /* a surrogate */
        {"\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\""}, /* above U+10FFFF */
        {"n\xe2\x82", "\"n\\u00e2\\u0082\""},              /* cut short by the end */
        {"\xe2\x82x", "\"\\u00e2\\u0082x\""},              /* cut short by an ASCII byte */
        {"q\"b\\s\x01\x7f", "\"q\\\"b\\\\s\\u0001\x7f\""}, /* escapes; DEL is fine in JSON */
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *doc = hand_made_document(names[i].name, 1.5e-6);
        check_document(doc, names[i].written);
        free(doc);
    }

    /* Locales made by tests/mpi/run with localedef: a decimal comma and a two-byte decimal
       point (U+066B). The document must be the same bytes as under "C". */
    char *plain = hand_made_document("a", 1.5e-6);
    const char *list = getenv("DIVLOAD_TEST_LOCALES");
    if (list == NULL || list[0] == '\0') {
        if (rank_ == 0)
            printf("  decimal-point locales: skipped, tests/mpi/run could not create them (see its message)\n");
    } else {
        char copy[256];
        snprintf(copy, sizeof copy, "%s", list);
        for (char *name = strtok(copy, " "); name != NULL; name = strtok(NULL, " ")) {
            const int set = setlocale(LC_NUMERIC, name) != NULL;
            CHECK(set && strcmp(localeconv()->decimal_point, ".") != 0);
            if (!set) continue;
            char *doc = hand_made_document("a", 1.5e-6);
            CHECK(doc != NULL && plain != NULL && strcmp(doc, plain) == 0);
            check_document(doc, "\"latency\": 1234.5,");
            free(doc);
            setlocale(LC_NUMERIC, "C");
            if (rank_ == 0) printf("  decimal point of locale %s: the document is the same as under C\n", name);
        }
    }
    free(plain);
}

static void check_errors(const divload_mpi_multicluster *cal, const char *host_doc) {
    divload_mpi_multicluster bad;
    /* A colour below 0 (not the host sentinel) on one rank fails on all. */
    CHECK(divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, rank_ == size_ - 1 ? -5 : 0, NULL, &bad) ==
          DIVLOAD_INVALID_INPUT);
    CHECK(bad.cluster_of == NULL && bad.names == NULL);
    /* Options come from rank 0: a bad one there fails everywhere. */
    divload_mpi_calibration_options opt = {0, 0, 0, 0};
    if (rank_ == 0) opt.large_bytes = 4;
    CHECK(divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, 0, &opt, &bad) == DIVLOAD_INVALID_INPUT);
    opt.large_bytes = 0;
    opt.repetitions = rank_ == 0 ? -1 : 5;
    CHECK(divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, 0, &opt, &bad) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, 0, NULL, NULL) == DIVLOAD_NULL_PARAMETER);

    /* The writer's own checks. */
    char out[64];
    size_t len = 5;
    CHECK(divload_mpi_multicluster_json(cal, RING, 0, out, sizeof out, &len) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_multicluster_json(cal, "", 4, out, sizeof out, &len) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_multicluster_json(cal, NULL, 4, out, sizeof out, &len) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_multicluster_json(cal, RING, 4, NULL, sizeof out, &len) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_mpi_multicluster_json(cal, RING, 4, out, sizeof out, NULL) == DIVLOAD_NULL_PARAMETER);
    divload_mpi_multicluster nan_cal = *cal;
    nan_cal.slow.gap = NAN;
    CHECK(divload_mpi_multicluster_json(&nan_cal, RING, 4, out, sizeof out, &len) == DIVLOAD_INVALID_INPUT);
    CHECK(len == 5);

    /* Plans that fail: the same status on every rank, nothing to free. */
    divload_mpi_multicluster_plan plan;
    static const char broken[] = "{\"model\": \"multicluster\", \"clusters\": [";
    CHECK(divload_mpi_multicluster_plan_create(cal, 0, broken, strlen(broken), &plan) == DIVLOAD_JSON);
    CHECK(plan.counts == NULL);
    if (rank_ == 0) {
        char msg[256];
        divload_last_error_message(msg, sizeof msg);
        CHECK(strstr(msg, "truncated") != NULL);
    }
    /* A document of one cluster of every rank is not a calibration of two clusters. */
    if (cal->clusters > 1)
        CHECK(divload_mpi_multicluster_plan_create(cal, 0, host_doc, strlen(host_doc), &plan) ==
              DIVLOAD_INVALID_INPUT);
    /* More processors than ranks. */
    char more[512];
    snprintf(more, sizeof more,
             "{\"model\": \"multicluster\", \"clusters\": [{\"name\": \"a\", \"processors\": %d}], \"links\": {"
             "\"fast\": {\"latency\": 1e-6, \"overhead\": 1e-7, \"gap\": 1e-9}, \"slow\": {\"latency\": 1e-5, "
             "\"overhead\": 1e-6, \"gap\": 1e-8}}, \"application\": %s}",
             size_ + 1, RING);
    CHECK(divload_mpi_multicluster_plan_create(cal, 0, more, strlen(more), &plan) == DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_multicluster_plan_create(cal, size_, host_doc, strlen(host_doc), &plan) ==
          DIVLOAD_INVALID_INPUT);
    CHECK(divload_mpi_multicluster_plan_create(cal, 0, NULL, 0, &plan) == DIVLOAD_NULL_PARAMETER);
    /* More units than MPI's int counts. */
    char *big = (char *)malloc(strlen(host_doc) + 32);
    const char *lattice = strstr(host_doc, "\"lattice\": 4096");
    if (big != NULL && lattice != NULL) {
        const int head = (int)(lattice - host_doc);
        sprintf(big, "%.*s\"lattice\": 4294967296%s", head, host_doc, lattice + strlen("\"lattice\": 4096"));
        divload_mpi_multicluster host;
        CHECK(divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, DIVLOAD_MPI_COLOUR_HOST, NULL, &host) == DIVLOAD_OK);
        CHECK(divload_mpi_multicluster_plan_create(&host, 0, big, strlen(big), &plan) == DIVLOAD_OVERFLOW);
        divload_mpi_multicluster_free(&host);
    }
    free(big);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);

    char *host_doc = NULL;
    divload_mpi_multicluster kept;
    memset(&kept, 0, sizeof kept);
    for (int g = 0; g < GROUPINGS; g++) {
        divload_mpi_multicluster cal;
        int st = DIVLOAD_OK;
        /* Timings on a node other jobs keep busy can lose every round trip to a scheduler
           time slice (L of milliseconds, g of 0): measured again after a pause, at most
           ATTEMPTS times, then checked for what must hold under any load (sane_link). */
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            st = divload_mpi_multicluster_calibrate(MPI_COMM_WORLD, colour_of((enum grouping)g, rank_), NULL, &cal);
            if (st != DIVLOAD_OK || ((!cal.fast.measured || plausible_link(&cal.fast)) &&
                                     (!cal.slow.measured || plausible_link(&cal.slow))))
                break;
            if (rank_ == 0)
                printf("  %s, attempt %d: fast L %.3g s, g %.3g s/byte; slow L %.3g s, g %.3g s/byte "
                       "(a busy node?)%s\n",
                       GROUPING_NAMES[g], attempt, cal.fast.latency, cal.fast.gap, cal.slow.latency, cal.slow.gap,
                       attempt < ATTEMPTS ? ", measuring again" : "");
            if (attempt < ATTEMPTS) {
                divload_mpi_multicluster_free(&cal);
                poll(NULL, 0, 2000);
            }
        }
        CHECK(st == DIVLOAD_OK);
        if (st != DIVLOAD_OK) continue;
        check_calibration((enum grouping)g, &cal);
        report((enum grouping)g, &cal);
        char *doc = write_document(&cal, RING, 4);
        if (doc != NULL) {
            if (!cal.slow.measured && size_ > 1) CHECK(strstr(doc, "slow link not measured (one cluster)") != NULL);
            check_plan(&cal, doc, 4096, size_ - 1);
        }
        char *sort = write_document(&cal, SORT, 4);
        if (sort != NULL) check_plan(&cal, sort, 100000, 0);
        free(sort);
        if (g == BY_HOST) {
            host_doc = doc;
        } else {
            free(doc);
        }
        if (g == INTERLEAVED) {
            kept = cal;
        } else {
            divload_mpi_multicluster_free(&cal);
        }
    }
    check_writer_text();
    if (host_doc != NULL && kept.names != NULL) check_errors(&kept, host_doc);
    free(host_doc);
    divload_mpi_multicluster_free(&kept);

    return finish("test_multicluster", "");
}
