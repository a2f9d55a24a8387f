/* Tests of the libdivload C API, in plain C (no MPI). Run by tests/c/run against the
 * static and the shared library, under AddressSanitizer + UndefinedBehaviorSanitizer and
 * under valgrind. Every failing call must return its status and leave the outputs as
 * they were. */
#include "divload.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

#define CHECK_STATUS(call, expected)                                                    \
    do {                                                                                \
        divload_status got_ = (call);                                                   \
        if (got_ != (expected)) {                                                       \
            char msg_[256];                                                             \
            divload_last_error_message(msg_, sizeof msg_);                              \
            fprintf(stderr, "%s:%d: %s returned %u (%s), expected %u; last error: %s\n", \
                    __FILE__, __LINE__, #call, (unsigned)got_,                          \
                    divload_status_message(got_), (unsigned)(expected), msg_);          \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

#define P 16
#define SENTINEL (-7)

/* genaud2003 Table 1, expanded to 16 ranks; rank 0 (dinadan) holds the data. */
static void table1(divload_worker w[P]) {
    static const struct { int copies; double lambda, mu; } rows[] = {
        {1, 0.0, 0.009288},   {1, 1.12e-5, 0.009365}, {1, 1.00e-5, 0.004629}, {1, 1.70e-5, 0.004885},
        {2, 8.15e-5, 0.003976}, {2, 2.10e-5, 0.016156}, {8, 3.53e-5, 0.009677},
    };
    int k = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        for (int c = 0; c < rows[r].copies; c++, k++) {
            w[k] = (divload_worker){0.0, rows[r].lambda, 0.0, rows[r].mu};
        }
    }
}

static void fill(int *a, size_t n) {
    for (size_t i = 0; i < n; i++) a[i] = SENTINEL;
}

static int untouched(const int *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != SENTINEL) return 0;
    return 1;
}

static char *last_error(void) {
    static char buf[512];
    divload_last_error_message(buf, sizeof buf);
    return buf;
}

static void test_version(void) {
    CHECK(divload_version_number() == DIVLOAD_VERSION_NUMBER);
    char expect[32];
    snprintf(expect, sizeof expect, "%d.%d.%d", DIVLOAD_VERSION_MAJOR, DIVLOAD_VERSION_MINOR,
             DIVLOAD_VERSION_PATCH);
    CHECK(strcmp(expect, DIVLOAD_VERSION_STRING) == 0);
}

/* A word the message of each status must contain, or NULL for a number that is not an
   enumerator. No default case: with -Wall -Werror (-Wswitch) a status added to the header
   fails to compile here until it is given its word. */
static const char *status_word(enum divload_status s) {
    switch (s) {
    case DIVLOAD_OK: return "success";
    case DIVLOAD_NULL_PARAMETER: return "null";
    case DIVLOAD_INVALID_INPUT: return "invalid input";
    case DIVLOAD_BUFFER_TOO_SMALL: return "too small";
    case DIVLOAD_OVERFLOW: return "too large";
    case DIVLOAD_JSON: return "JSON";
    case DIVLOAD_OUT_OF_MEMORY: return "out of memory";
    case DIVLOAD_PANIC: return "internal error";
    }
    return NULL;
}

static void test_status_messages(void) {
    const char *seen[64] = {0};
    unsigned enumerators = 0;
    for (uint32_t s = 0; s < 64; s++) {
        const char *m = divload_status_message(s);
        CHECK(m != NULL);
        if (m == NULL) continue;
        const char *word = status_word((enum divload_status)s);
        if (word != NULL) {
            enumerators++;
            if (strstr(m, word) == NULL) {
                fprintf(stderr, "status %u: message \"%s\" lacks \"%s\"\n", (unsigned)s, m, word);
                failures++;
            }
            for (uint32_t t = 0; t < s; t++) CHECK(seen[t] == NULL || strcmp(seen[t], m) != 0);
            seen[s] = m;
        } else {
            /* Not in the enum: never assigned, or retired (a #define that stays reserved). */
            CHECK(strcmp(m, "unknown status") == 0 || strncmp(m, "retired status", 14) == 0);
        }
    }
    CHECK(enumerators == 8);
    CHECK(strcmp(divload_status_message(DIVLOAD_OK), "success") == 0);
    CHECK(strcmp(divload_status_message(1000), "unknown status") == 0);
    CHECK(strcmp(divload_status_message(UINT32_MAX), "unknown status") == 0);
}

/* A misaligned summary fails every scatter call like any other misaligned pointer (it
   used to be skipped with DIVLOAD_OK), names `summary`, and leaves every output as it
   was; a null summary means "not wanted". */
static void test_misaligned_summary(void) {
    divload_worker w[P];
    table1(w);
    int counts[P], displs[P];
    int64_t c64[P], d64[P];
    divload_assignment plan[P], plan0[P];
    fill(counts, P);
    fill(displs, P);
    for (int r = 0; r < P; r++) c64[r] = d64[r] = SENTINEL;
    memset(plan0, 0x5a, sizeof plan0);
    memcpy(plan, plan0, sizeof plan);
    /* Built from a byte buffer: the library must refuse it without writing through it. */
    static _Alignas(16) unsigned char raw[sizeof(divload_summary) + 16], raw0[sizeof raw];
    memset(raw, 0x33, sizeof raw);
    memcpy(raw0, raw, sizeof raw);
    for (size_t off = 1; off < _Alignof(divload_summary); off++) {
        divload_summary *bad = (divload_summary *)(void *)(raw + off);
        CHECK_STATUS(divload_plan(w, P, 0, 1000, NULL, plan, P, bad), DIVLOAD_INVALID_INPUT);
        CHECK(strcmp(last_error(), "summary: pointer is not aligned for its type") == 0);
        CHECK_STATUS(divload_plan_counts(w, P, 0, 1000, NULL, counts, P, displs, P, bad), DIVLOAD_INVALID_INPUT);
        CHECK(strcmp(last_error(), "summary: pointer is not aligned for its type") == 0);
        CHECK_STATUS(divload_plan_counts64(w, P, 0, 1000, NULL, c64, P, d64, P, bad), DIVLOAD_INVALID_INPUT);
        CHECK(strcmp(last_error(), "summary: pointer is not aligned for its type") == 0);
    }
    CHECK(untouched(counts, P) && untouched(displs, P));
    for (int r = 0; r < P; r++) CHECK(c64[r] == SENTINEL && d64[r] == SENTINEL);
    CHECK(memcmp(plan, plan0, sizeof plan) == 0);
    CHECK(memcmp(raw, raw0, sizeof raw) == 0);

    /* The other errors still come first where they did: a null input is reported as such. */
    divload_summary *bad = (divload_summary *)(void *)(raw + 1);
    CHECK_STATUS(divload_plan_counts(NULL, P, 0, 1000, NULL, counts, P, displs, P, bad), DIVLOAD_NULL_PARAMETER);

    /* Null and aligned summaries. */
    CHECK_STATUS(divload_plan(w, P, 0, 1000, NULL, plan, P, NULL), DIVLOAD_OK);
    CHECK_STATUS(divload_plan_counts(w, P, 0, 1000, NULL, counts, P, displs, P, NULL), DIVLOAD_OK);
    CHECK_STATUS(divload_plan_counts64(w, P, 0, 1000, NULL, c64, P, d64, P, NULL), DIVLOAD_OK);
    divload_summary s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(divload_plan_counts64(w, P, 0, 1000, NULL, c64, P, d64, P, &s), DIVLOAD_OK);
    CHECK(s.items == 1000 && s.participating > 0);
}

static void test_table1(void) {
    divload_worker w[P];
    table1(w);
    const uint64_t n = 817101;
    int counts[P], displs[P];
    divload_summary s;
    memset(&s, 0, sizeof s);
    CHECK_STATUS(divload_plan_counts(w, P, 0, n, NULL, counts, P, displs, P, &s), DIVLOAD_OK);
    long long sum = 0;
    for (int r = 0; r < P; r++) {
        CHECK(counts[r] >= 0);
        sum += counts[r];
    }
    CHECK(sum == (long long)n);
    CHECK(s.items == n && s.root == 0 && s.participating == P);
    /* The paper's Table 1 grid: 403.97 s predicted (docs/cli.md), 829 s for the even split. */
    CHECK(fabs(s.makespan - 403.975) < 0.01);
    CHECK(s.lower_bound <= s.makespan && s.makespan <= s.bound);
    CHECK(s.uniform_makespan > 2.0 * s.makespan);
    /* With linear costs the bound is the rational optimum, lowered by its proven rounding
       margin so that it stays below every plan as computed. */
    CHECK(!s.rational_exact || (s.lower_bound <= s.rational_makespan && s.rational_makespan - s.lower_bound < 1e-12 * s.rational_makespan));

    /* The detailed plan agrees, and its blocks are contiguous in send order. */
    divload_assignment plan[P];
    CHECK_STATUS(divload_plan(w, P, 0, n, NULL, plan, P, NULL), DIVLOAD_OK);
    uint64_t offset = 0;
    double latest = 0.0;
    for (int k = 0; k < P; k++) {
        size_t r = plan[k].rank;
        CHECK(r < P);
        if (r >= P) continue;
        CHECK(plan[k].count == (uint64_t)counts[r]);
        CHECK(plan[k].displacement == (uint64_t)displs[r]);
        CHECK(plan[k].displacement == offset);
        offset += plan[k].count;
        CHECK(plan[k].start <= plan[k].received && plan[k].received <= plan[k].finish);
        if (plan[k].finish > latest) latest = plan[k].finish;
    }
    CHECK(plan[P - 1].rank == 0); /* after_send: the root is served last */
    CHECK(latest == s.makespan);

    /* 64-bit counts are the same numbers. */
    int64_t c64[P], d64[P];
    CHECK_STATUS(divload_plan_counts64(w, P, 0, n, NULL, c64, P, d64, P, NULL), DIVLOAD_OK);
    for (int r = 0; r < P; r++) CHECK(c64[r] == counts[r] && d64[r] == displs[r]);

    /* Options: given order keeps rank order with the root last; every rounding sums. */
    divload_options o = {DIVLOAD_ROOT_MODE_AFTER_SEND, DIVLOAD_ORDER_GIVEN, DIVLOAD_ROUNDING_PAPER};
    CHECK_STATUS(divload_plan(w, P, 0, n, &o, plan, P, NULL), DIVLOAD_OK);
    for (int k = 0; k + 1 < P; k++) CHECK(plan[k].rank == (size_t)(k + 1));
    for (uint32_t rounding = 0; rounding <= 2; rounding++) {
        divload_options ro = {DIVLOAD_ROOT_MODE_OVERLAP, DIVLOAD_ORDER_BANDWIDTH, rounding};
        CHECK_STATUS(divload_plan_counts(w, P, 3, n, &ro, counts, P, displs, P, NULL), DIVLOAD_OK);
        sum = 0;
        for (int r = 0; r < P; r++) sum += counts[r];
        CHECK(sum == (long long)n);
        CHECK(displs[3] == 0); /* overlap: the root keeps the first block */
    }
}

static void test_zero_counts(void) {
    /* Fewer items than workers: some ranks get nothing, and that is fine for Scatterv. */
    divload_worker w[P];
    table1(w);
    int counts[P], displs[P];
    CHECK_STATUS(divload_plan_counts(w, P, 0, 3, NULL, counts, P, displs, P, NULL), DIVLOAD_OK);
    int sum = 0, zeros = 0;
    for (int r = 0; r < P; r++) {
        CHECK(counts[r] >= 0 && displs[r] >= 0 && displs[r] <= 3);
        sum += counts[r];
        zeros += counts[r] == 0;
    }
    CHECK(sum == 3 && zeros >= P - 3);
}

static void test_bad_input(void) {
    divload_worker w[P];
    table1(w);
    int counts[P], displs[P];
    divload_summary s, s0;
    memset(&s0, 0x5a, sizeof s0);
    fill(counts, P);
    fill(displs, P);
    s = s0;

#define EXPECT_UNTOUCHED()                                                  \
    do {                                                                    \
        CHECK(untouched(counts, P) && untouched(displs, P));                \
        CHECK(memcmp(&s, &s0, sizeof s) == 0);                              \
    } while (0)

    /* Null pointers. */
    CHECK_STATUS(divload_plan_counts(NULL, P, 0, 100, NULL, counts, P, displs, P, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strstr(last_error(), "workers") != NULL);
    CHECK_STATUS(divload_plan_counts(w, P, 0, 100, NULL, NULL, P, displs, P, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strstr(last_error(), "counts") != NULL);
    CHECK_STATUS(divload_plan_counts(w, P, 0, 100, NULL, counts, P, NULL, P, &s), DIVLOAD_NULL_PARAMETER);
    CHECK_STATUS(divload_plan_counts(NULL, 0, 0, 100, NULL, counts, P, displs, P, &s), DIVLOAD_NULL_PARAMETER);
    CHECK_STATUS(divload_plan(w, P, 0, 100, NULL, NULL, P, &s), DIVLOAD_NULL_PARAMETER);
    EXPECT_UNTOUCHED();

    /* Zero lengths and zero items. */
    CHECK_STATUS(divload_plan_counts(w, 0, 0, 100, NULL, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "at least one worker") != NULL);
    CHECK_STATUS(divload_plan_counts(w, P, 0, 0, NULL, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "items: must be at least 1, got 0") == 0);
    EXPECT_UNTOUCHED();

    /* Buffers too small. */
    CHECK_STATUS(divload_plan_counts(w, P, 0, 100, NULL, counts, P - 1, displs, P, &s), DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(strcmp(last_error(), "counts: buffer too small, need 16, got 15") == 0);
    CHECK_STATUS(divload_plan_counts(w, P, 0, 100, NULL, counts, P, displs, 0, &s), DIVLOAD_BUFFER_TOO_SMALL);
    divload_assignment plan[P];
    CHECK_STATUS(divload_plan(w, P, 0, 100, NULL, plan, 2, &s), DIVLOAD_BUFFER_TOO_SMALL);
    EXPECT_UNTOUCHED();

    /* Bad costs: NaN, infinity, negative, zero compute time. */
    const double bad[] = {NAN, INFINITY, -1.0, 0.0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        divload_worker b[P];
        table1(b);
        b[2].comp_per_item = bad[i];
        CHECK_STATUS(divload_plan_counts(b, P, 0, 100, NULL, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
        CHECK(strncmp(last_error(), "worker 2: comp_per_item must be finite and > 0", 46) == 0);
        table1(b);
        b[5].comm_latency = bad[i] == 0.0 ? -0.5 : bad[i];
        CHECK_STATUS(divload_plan_counts(b, P, 0, 100, NULL, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
        CHECK(strstr(last_error(), "worker 5: comm_latency") != NULL);
    }
    EXPECT_UNTOUCHED();

    /* Root and options out of range. */
    CHECK_STATUS(divload_plan_counts(w, P, P, 100, NULL, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "root: must be a worker index in 0..16, got 16") == 0);
    divload_options o = {0, 0, 9};
    CHECK_STATUS(divload_plan_counts(w, P, 0, 100, &o, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "options.rounding") != NULL);
    o = (divload_options){5, 0, 0};
    CHECK_STATUS(divload_plan_counts(w, P, 0, 100, &o, counts, P, displs, P, &s), DIVLOAD_INVALID_INPUT);
    EXPECT_UNTOUCHED();

    /* Counts beyond INT_MAX do not fit MPI_Scatterv's int; the 64-bit call takes them. */
    const uint64_t big = (uint64_t)INT_MAX + 1;
    CHECK_STATUS(divload_plan_counts(w, P, 0, big, NULL, counts, P, displs, P, &s), DIVLOAD_OVERFLOW);
    CHECK(strstr(last_error(), "INT_MAX") != NULL);
    EXPECT_UNTOUCHED();
    int64_t c64[P], d64[P];
    CHECK_STATUS(divload_plan_counts64(w, P, 0, big, NULL, c64, P, d64, P, NULL), DIVLOAD_OK);
    int64_t sum = 0;
    for (int r = 0; r < P; r++) sum += c64[r];
    CHECK(sum == (int64_t)big);
    CHECK_STATUS(divload_plan_counts64(w, P, 0, (1ULL << 53) + 1, NULL, c64, P, d64, P, NULL), DIVLOAD_OVERFLOW);

    /* Lengths that no memory can hold. */
    CHECK_STATUS(divload_plan_counts(w, SIZE_MAX, 0, 100, NULL, counts, SIZE_MAX, displs, SIZE_MAX, &s),
                 DIVLOAD_OVERFLOW);
    EXPECT_UNTOUCHED();
#undef EXPECT_UNTOUCHED
}

/* The root's link costs are documented as ignored (its part is not sent): NaN, infinite
   or negative values there plan exactly as zeros do, through every scatter entry point,
   in both root modes, with the root in the middle of the ranks. */
static void test_root_link_ignored(void) {
    const size_t root = 5;
    const uint64_t n = 10007;
    divload_worker zero[P];
    table1(zero);
    zero[root].comm_latency = zero[root].comm_per_item = 0.0;
    const double bad[][2] = {{NAN, NAN}, {-1.0, -2e-6}, {INFINITY, 1e-3}, {0.5, -INFINITY}};
    for (uint32_t mode = 0; mode <= 1; mode++) {
        const divload_options o = {mode, DIVLOAD_ORDER_BANDWIDTH, DIVLOAD_ROUNDING_GREEDY};
        divload_assignment want[P], got[P];
        divload_summary ws, gs;
        int wc[P], wd[P], gc[P], gd[P];
        int64_t wc64[P], wd64[P], gc64[P], gd64[P];
        CHECK_STATUS(divload_plan(zero, P, root, n, &o, want, P, &ws), DIVLOAD_OK);
        CHECK_STATUS(divload_plan_counts(zero, P, root, n, &o, wc, P, wd, P, NULL), DIVLOAD_OK);
        CHECK_STATUS(divload_plan_counts64(zero, P, root, n, &o, wc64, P, wd64, P, NULL), DIVLOAD_OK);
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            divload_worker w[P];
            table1(w);
            w[root].comm_latency = bad[b][0];
            w[root].comm_per_item = bad[b][1];
            CHECK_STATUS(divload_plan(w, P, root, n, &o, got, P, &gs), DIVLOAD_OK);
            CHECK(memcmp(got, want, sizeof got) == 0);
            /* Field by field: the summary's padding after rational_exact is unspecified. */
            CHECK(gs.items == ws.items && gs.root == ws.root && gs.participating == ws.participating);
            CHECK(gs.makespan == ws.makespan && gs.rational_makespan == ws.rational_makespan);
            CHECK(gs.lower_bound == ws.lower_bound && gs.bound == ws.bound);
            CHECK(gs.uniform_makespan == ws.uniform_makespan && gs.rational_exact == ws.rational_exact);
            CHECK_STATUS(divload_plan_counts(w, P, root, n, &o, gc, P, gd, P, NULL), DIVLOAD_OK);
            CHECK(memcmp(gc, wc, sizeof gc) == 0 && memcmp(gd, wd, sizeof gd) == 0);
            CHECK_STATUS(divload_plan_counts64(w, P, root, n, &o, gc64, P, gd64, P, NULL), DIVLOAD_OK);
            CHECK(memcmp(gc64, wc64, sizeof gc64) == 0 && memcmp(gd64, wd64, sizeof gd64) == 0);
        }
    }
    /* Only the root's: the same NaN on another rank, or on the root's compute cost, fails. */
    divload_worker w[P];
    int counts[P], displs[P];
    table1(w);
    w[root + 1].comm_per_item = NAN;
    CHECK_STATUS(divload_plan_counts(w, P, root, n, NULL, counts, P, displs, P, NULL), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "worker 6: comm_per_item must be finite and >= 0, got NaN") == 0);
    table1(w);
    w[root].comp_latency = NAN;
    CHECK_STATUS(divload_plan_counts(w, P, root, n, NULL, counts, P, displs, P, NULL), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "worker 5: comp_latency must be finite and >= 0, got NaN") == 0);
}

static const char TABLE1_JSON[] =
    "{\"version\": 1, \"items\": 817101, \"root\": \"dinadan\", \"workers\": ["
    "{\"name\": \"dinadan\", \"comm_per_item\": 0, \"comp_per_item\": 0.009288},"
    "{\"name\": \"pellinore\", \"comm_per_item\": 1.12e-5, \"comp_per_item\": 0.009365},"
    "{\"name\": \"caseb\", \"comm_per_item\": 1.00e-5, \"comp_per_item\": 0.004629},"
    "{\"name\": \"sekhmet\", \"comm_per_item\": 1.70e-5, \"comp_per_item\": 0.004885},"
    "{\"name\": \"merlin\", \"count\": 2, \"comm_per_item\": 8.15e-5, \"comp_per_item\": 0.003976},"
    "{\"name\": \"seven\", \"count\": 2, \"comm_per_item\": 2.10e-5, \"comp_per_item\": 0.016156},"
    "{\"name\": \"leda\", \"count\": 8, \"comm_per_item\": 3.53e-5, \"comp_per_item\": 0.009677}]}";

static void test_json(void) {
    char small[16];
    memset(small, 'x', sizeof small);
    size_t needed = 0;
    CHECK_STATUS(divload_plan_json(TABLE1_JSON, strlen(TABLE1_JSON), small, sizeof small, &needed),
                 DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(needed > sizeof small);
    for (size_t i = 0; i < sizeof small; i++) CHECK(small[i] == 'x');

    char *doc = malloc(needed);
    CHECK(doc != NULL);
    if (doc == NULL) return;
    size_t len = 0;
    CHECK_STATUS(divload_plan_json(TABLE1_JSON, strlen(TABLE1_JSON), doc, needed, &len), DIVLOAD_OK);
    CHECK(len + 1 == needed && strlen(doc) == len);
    CHECK(strstr(doc, "\"makespan\":403.97") != NULL);
    CHECK(strstr(doc, "\"name\":\"leda\"") != NULL);

    /* Malformed, truncated, or schema errors: DIVLOAD_JSON, nothing written. */
    memset(doc, 'y', needed);
    size_t untouched_n = 12345;
    CHECK_STATUS(divload_plan_json(TABLE1_JSON, strlen(TABLE1_JSON) - 10, doc, needed, &untouched_n), DIVLOAD_JSON);
    CHECK(strncmp(last_error(), "platform JSON", 13) == 0);
    const char *broken[] = {"", "{", "[1,2]", "{\"version\": 1, \"items\": 5}", "{\"version\": 2}",
                            "{\"version\": 1, \"items\": 10, \"root\": \"a\", \"workers\": [{\"name\": \"a\","
                            " \"comm_per_item\": 0, \"comp_per_item\": 1, \"speed\": 3}]}"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        divload_status st = divload_plan_json(broken[i], strlen(broken[i]), doc, needed, &untouched_n);
        CHECK(st == DIVLOAD_JSON || st == DIVLOAD_INVALID_INPUT);
        CHECK(st != DIVLOAD_OK);
    }
    CHECK(untouched_n == 12345);
    for (size_t i = 0; i < needed; i++) CHECK(doc[i] == 'y');

    /* Null pointers. */
    CHECK_STATUS(divload_plan_json(NULL, 0, doc, needed, &len), DIVLOAD_NULL_PARAMETER);
    CHECK_STATUS(divload_plan_json(TABLE1_JSON, strlen(TABLE1_JSON), NULL, 0, &len), DIVLOAD_NULL_PARAMETER);
    CHECK_STATUS(divload_plan_json(TABLE1_JSON, strlen(TABLE1_JSON), doc, needed, NULL), DIVLOAD_NULL_PARAMETER);
    free(doc);
}

/* Measured costs through the same entry point: the document's solver is honoured. */
static void test_json_solvers(void) {
    static const char MEASURED[] =
        "{\"items\": 2000, \"root\": \"a\", \"solver\": \"%s\", \"workers\": ["
        "{\"name\": \"a\", \"comm_per_item\": 0, \"comp_table\": [[100, 0.1], [1000, 1.4]]},"
        "{\"name\": \"b\", \"count\": 2, \"comm_per_item\": 1e-4,"
        " \"comp_power\": {\"coeff\": 1e-6, \"exponent\": 2}}]}";
    const char *solvers[] = {"exact", "sampled", "auto", "closed_form"};
    const char *methods[] = {"\"method\":\"exact_dp\"", "\"method\":\"sampled_dp\"", "\"method\":\"exact_dp\"", NULL};
    for (size_t i = 0; i < 4; i++) {
        char text[512], out[4096];
        int n = snprintf(text, sizeof text, MEASURED, solvers[i]);
        CHECK(n > 0 && (size_t)n < sizeof text);
        size_t len = 0;
        divload_status st = divload_plan_json(text, (size_t)n, out, sizeof out, &len);
        if (methods[i] == NULL) {
            CHECK_STATUS(st, DIVLOAD_JSON);
            CHECK(strstr(last_error(), "closed_form needs affine costs") != NULL);
            continue;
        }
        CHECK_STATUS(st, DIVLOAD_OK);
        CHECK(strstr(out, methods[i]) != NULL);
        CHECK(strstr(out, "\"gap\":") != NULL);
    }
}

/* Strict JSON (RFC 8259) from C: lenient forms, duplicate keys, raw control characters and
 * deep nesting are DIVLOAD_JSON with the byte offset in the message, even on a thread with
 * a small stack; names with escapes come back exactly as written. */
static const char STRICT_HEAD[] = "{\"items\": 10, \"root\": \"a\", ";
static const char STRICT_WORKERS[] =
    "\"workers\": [{\"name\": \"a\", \"comm_per_item\": 0, \"comp_per_item\": 1},"
    " {\"name\": \"b\", \"comm_per_item\": 0.5, \"comp_per_item\": 2}]}";

static divload_status plan_text(const char *text, size_t n) {
    static char out[8192];
    size_t len = 0;
    return divload_plan_json(text, n, out, sizeof out, &len);
}

static void expect_strict(const char *extra, const char *needle) {
    char text[1024];
    int n = snprintf(text, sizeof text, "%s%s, %s", STRICT_HEAD, extra, STRICT_WORKERS);
    CHECK(n > 0 && (size_t)n < sizeof text);
    CHECK_STATUS(plan_text(text, (size_t)n), DIVLOAD_JSON);
    if (strstr(last_error(), needle) == NULL || strstr(last_error(), "byte ") == NULL) {
        fprintf(stderr, "expected \"%s\" with a byte offset in \"%s\"\n", needle, last_error());
        failures++;
    }
}

static void *deep_nesting(void *arg) {
    (void)arg;
    size_t depth = 200000, head = strlen(STRICT_HEAD) + strlen("\"comment\": ");
    char *text = malloc(head + depth + 1);
    if (text == NULL) return NULL;
    strcpy(text, STRICT_HEAD);
    strcat(text, "\"comment\": ");
    memset(text + head, '[', depth);
    text[head + depth] = '\0';
    /* The model is found first by a scan that skips other values, which stops at 128
       levels; the reader then refuses the comment, which must be a string. */
    CHECK_STATUS(plan_text(text, head + depth), DIVLOAD_JSON);
    CHECK(strstr(last_error(), "comment: byte") != NULL);
    free(text);
    return NULL;
}

static void test_json_strict(void) {
    expect_strict("\"version\": hello world", "bare word");
    expect_strict("\"version\": .5", "invalid number");
    expect_strict("\"version\": +0.5", "invalid number");
    expect_strict("\"version\": 5.", "invalid number");
    expect_strict("\"version\": 05", "invalid number");
    expect_strict("\"comment\": 'x'", "single-quoted");
    expect_strict("\"comment\": \"a\x01b\"", "raw control character");
    expect_strict("\"items\": 5", "items: byte");
    expect_strict("\"order\": \"given\", \"order\": \"given\"", "duplicate key");

    /* 256 KiB of stack: recursion over 200 000 levels would need megabytes. */
    pthread_attr_t attr;
    pthread_t t;
    CHECK(pthread_attr_init(&attr) == 0);
    CHECK(pthread_attr_setstacksize(&attr, 256 * 1024) == 0);
    CHECK(pthread_create(&t, &attr, deep_nesting, NULL) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    pthread_attr_destroy(&attr);

    static const char ESCAPED[] =
        "{\"items\": 10, \"root\": \"q\\\"uote\", \"workers\": ["
        "{\"name\": \"q\\\"uote\", \"comm_per_item\": 0, \"comp_per_item\": 1},"
        "{\"name\": \"caf\\u00e9 \\\\ \\u0001\", \"comm_per_item\": 0.5, \"comp_per_item\": 2}]}";
    char out[4096];
    size_t len = 0, needed = 0;
    CHECK_STATUS(divload_plan_json(ESCAPED, strlen(ESCAPED), out, 8, &needed), DIVLOAD_BUFFER_TOO_SMALL);
    CHECK_STATUS(divload_plan_json(ESCAPED, strlen(ESCAPED), out, needed, &len), DIVLOAD_OK);
    CHECK(len + 1 == needed);
    CHECK(strstr(out, "\"name\":\"q\\\"uote\"") != NULL);
    CHECK(strstr(out, "\"name\":\"caf\\u00e9 \\\\ \\u0001\"") != NULL);
}

static void test_models(void) {
    size_t needed = 0, len = 0;
    char tiny[4];
    CHECK_STATUS(divload_models_json(tiny, sizeof tiny, &needed), DIVLOAD_BUFFER_TOO_SMALL);
    /* The models with their documents' schemas: a few KB per model. */
    static char out[65536];
    CHECK(needed <= sizeof out);
    CHECK_STATUS(divload_models_json(out, needed, &len), DIVLOAD_OK);
    CHECK(len + 1 == needed && strlen(out) == len);
    CHECK(strstr(out, "{\"name\":\"scatter\"") != NULL);
    CHECK_STATUS(divload_models_json(NULL, 0, &len), DIVLOAD_NULL_PARAMETER);
}

/* The return-message model through the same universal entry point: the slides' platform
   B, best scenario (throughput 38/499, 1000 items: makespan 13139 s), and its errors. */
static void test_returns_json(void) {
    static const char *doc =
        "{\"model\": \"returns\", \"items\": 1000, \"schedule\": \"best\", \"workers\": ["
        "{\"name\": \"p1\", \"comm_per_item\": 7, \"comp_per_item\": 6, \"return_per_item\": 7},"
        "{\"name\": \"p2\", \"comm_per_item\": 8, \"comp_per_item\": 5, \"return_per_item\": 8},"
        "{\"name\": \"p3\", \"comm_per_item\": 12, \"comp_per_item\": 5, \"return_per_item\": 12}]}";
    size_t needed = 0, len = 0;
    char tiny[8];
    CHECK_STATUS(divload_plan_json(doc, strlen(doc), tiny, sizeof tiny, &needed), DIVLOAD_BUFFER_TOO_SMALL);
    char out[4096];
    CHECK(needed <= sizeof out);
    CHECK_STATUS(divload_plan_json(doc, strlen(doc), out, sizeof out, &len), DIVLOAD_OK);
    CHECK(strstr(out, "\"model\":\"returns\"") != NULL);
    CHECK(strstr(out, "\"method\":\"best_scenario\"") != NULL);
    CHECK(strstr(out, "\"makespan\":13139,") != NULL);
    static const char *bad =
        "{\"model\": \"returns\", \"items\": 10, \"workers\": ["
        "{\"name\": \"p1\", \"comm_per_item\": 7, \"comp_per_item\": -6, \"return_per_item\": 7}]}";
    CHECK_STATUS(divload_plan_json(bad, strlen(bad), out, sizeof out, &len), DIVLOAD_JSON);
    char msg[256];
    divload_last_error_message(msg, sizeof msg);
    CHECK(strstr(msg, "workers[0].comp_per_item: must be finite and > 0, got -6") != NULL);
    CHECK_STATUS(divload_plan_json(doc, strlen(doc) - 5, out, sizeof out, &len), DIVLOAD_JSON);
}

/* The multi-cluster model through the same entry point: heien Table 4's base (two
   clusters of 8, S = 8192, 20 steps: 54.415 s) and a bad value named by its key. */
static void test_multicluster_json(void) {
    static const char *doc =
        "{\"model\": \"multicluster\", \"clusters\": [{\"name\": \"a\", \"processors\": 8},"
        "{\"name\": \"b\", \"processors\": 8}], \"links\": {"
        "\"fast\": {\"latency\": 45e-6, \"overhead\": 5e-6, \"gap\": 0.05e-6},"
        "\"slow\": {\"latency\": 400e-6, \"overhead\": 10e-6, \"gap\": 0.5e-6}},"
        "\"application\": {\"pattern\": \"ring\", \"lattice\": 8192, \"flip_time\": 0.55e-6, \"steps\": 20}}";
    size_t len = 0;
    static char out[16384];
    CHECK_STATUS(divload_plan_json(doc, strlen(doc), out, sizeof out, &len), DIVLOAD_OK);
    CHECK(strstr(out, "\"model\":\"multicluster\"") != NULL);
    CHECK(strstr(out, "\"rational_makespan\":54.415") != NULL);
    char bad[1024];
    snprintf(bad, sizeof bad, "%s", doc);
    char *speed = strstr(bad, "\"processors\": 8}");
    CHECK(speed != NULL);
    if (speed) memcpy(speed, "\"processors\": 0}", strlen("\"processors\": 0}"));
    CHECK_STATUS(divload_plan_json(bad, strlen(bad), out, sizeof out, &len), DIVLOAD_JSON);
    char msg[256];
    divload_last_error_message(msg, sizeof msg);
    CHECK(strstr(msg, "clusters[0].processors: must be in 1..=16777216") != NULL);
}

/* The multi-cluster model through its typed entry point: the same document gives the
   counts, displacements and step times of divload_plan_json's "plan", in the document's
   processor order; bad input returns its status and leaves the outputs untouched. */
static const char MC_DOC[] =
    "{\"model\": \"multicluster\", \"clusters\": [{\"name\": \"a\", \"processors\": 3},"
    "{\"name\": \"b\", \"processors\": 1}, {\"name\": \"c\", \"processors\": 4}], \"links\": {"
    "\"fast\": {\"latency\": 45e-6, \"overhead\": 5e-6, \"gap\": 0.05e-6},"
    "\"slow\": {\"latency\": 400e-6, \"overhead\": 10e-6, \"gap\": 0.5e-6}},"
    "\"application\": {\"pattern\": \"ring\", \"lattice\": 2048, \"flip_time\": 0.55e-6, \"steps\": 20}}";

static void test_multicluster_counts(void) {
    divload_multicluster_processor out[8];
    divload_multicluster_summary s;
    size_t n = 0;
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), out, 8, &n, &s), DIVLOAD_OK);
    CHECK(n == 8 && s.processors == 8 && s.units == 2048);
    static const size_t cluster[8] = {0, 0, 0, 1, 2, 2, 2, 2};
    static const uint32_t index[8] = {0, 1, 2, 0, 0, 1, 2, 3};
    uint64_t sum = 0;
    double slowest = 0.0;
    for (size_t k = 0; k < 8; k++) {
        CHECK(out[k].cluster == cluster[k] && out[k].index == index[k]);
        sum += out[k].count;
        if (out[k].step_time > slowest) slowest = out[k].step_time;
    }
    CHECK(sum == 2048 && slowest == s.step_time);
    CHECK(s.lower_bound <= s.makespan && s.makespan <= s.even_makespan);
    /* Inside a cluster (r = 2) gets more than its ends (r = 1). */
    CHECK(out[1].fast_links == 2 && out[0].fast_links == 1 && out[1].count > out[0].count);

    static char doc[16384];
    size_t len = 0;
    CHECK_STATUS(divload_plan_json(MC_DOC, strlen(MC_DOC), doc, sizeof doc, &len), DIVLOAD_OK);
    for (size_t k = 0; k < 8; k++) {
        char row[160];
        snprintf(row, sizeof row, "\"rank\":%zu,\"fast_links\":%u,\"count\":%llu,\"displacement\":%llu,", k,
                 (unsigned)out[k].fast_links, (unsigned long long)out[k].count,
                 (unsigned long long)out[k].displacement);
        CHECK(strstr(doc, row) != NULL);
    }

    /* Errors: the status, a message naming the input, the outputs untouched. */
    divload_multicluster_processor out0[8];
    divload_multicluster_summary s0;
    memset(out0, 0x5a, sizeof out0);
    memset(&s0, 0x5a, sizeof s0);
    memcpy(out, out0, sizeof out);
    s = s0;
    n = 12345;
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), out, 7, &n, &s), DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(n == 8);
    CHECK(strcmp(last_error(), "out: buffer too small, need 8, got 7") == 0);
    n = 12345;
    CHECK_STATUS(divload_plan_multicluster(NULL, 0, out, 8, &n, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strcmp(last_error(), "json: must not be a null pointer") == 0);
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), NULL, 8, &n, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strcmp(last_error(), "out: must not be a null pointer") == 0);
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), out, 8, NULL, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strcmp(last_error(), "out_n: must not be a null pointer") == 0);
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC) - 4, out, 8, &n, &s), DIVLOAD_JSON);
    CHECK(strstr(last_error(), "truncated document") != NULL);
    CHECK_STATUS(divload_plan_multicluster(TABLE1_JSON, strlen(TABLE1_JSON), out, 8, &n, &s), DIVLOAD_JSON);
    CHECK(strstr(last_error(), "model: must be \"multicluster\"") != NULL);
    char bad[1024];
    snprintf(bad, sizeof bad, "%s", MC_DOC);
    char *lat = strstr(bad, "\"latency\": 45e-6");
    CHECK(lat != NULL);
    if (lat) memcpy(lat, "\"latency\": -5e-6", strlen("\"latency\": -5e-6"));
    CHECK_STATUS(divload_plan_multicluster(bad, strlen(bad), out, 8, &n, &s), DIVLOAD_JSON);
    CHECK(strstr(last_error(), "links.fast.latency: must be finite and >= 0, got -5e-6") != NULL);
    static _Alignas(16) unsigned char raw[sizeof(divload_multicluster_summary) + 16];
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), out, 8, &n,
                                           (divload_multicluster_summary *)(void *)(raw + 4)),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "summary: pointer is not aligned") != NULL);
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), (divload_multicluster_processor *)(void *)(raw + 1),
                                           8, &n, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "out: pointer is not aligned") != NULL);
    CHECK(n == 12345);
    CHECK(memcmp(out, out0, sizeof out) == 0 && memcmp(&s, &s0, sizeof s) == 0);
    /* A null summary is allowed. */
    CHECK_STATUS(divload_plan_multicluster(MC_DOC, strlen(MC_DOC), out, 8, &n, NULL), DIVLOAD_OK);
}

/* The return-message model through its typed entry point: the slides' platform B
   (c = d = (7, 8, 12), w = (6, 5, 5), 1000 items), every schedule, and its errors. */
#define RB 3
static const divload_return_worker PLATFORM_B[RB] = {{7, 6, 7}, {8, 5, 8}, {12, 5, 12}};

/* Checks what every plan must satisfy: counts sum to the items, blocks contiguous in send
   order, send and return positions are permutations, the times are ordered, the makespan
   is the last return and lies between the bounds. */
static void check_returns_plan(const divload_return_assignment *a, size_t n, uint64_t items,
                               const divload_returns_summary *s) {
    uint64_t offset = 0;
    int seen_send[64] = {0}, seen_return[64] = {0}, seen_rank[64] = {0};
    double last = 0.0;
    size_t members = 0;
    for (size_t k = 0; k < n && n <= 64; k++) {
        CHECK(a[k].rank < n && a[k].send_position == k && a[k].return_position < n);
        if (a[k].rank >= n || a[k].return_position >= n) continue;
        seen_rank[a[k].rank]++;
        seen_send[a[k].send_position]++;
        seen_return[a[k].return_position]++;
        CHECK(a[k].displacement == offset);
        offset += a[k].count;
        members += a[k].member;
        CHECK(a[k].member == (k < s->members));
        if (!a[k].member) CHECK(a[k].count == 0 && a[k].return_position == k);
        if (a[k].count == 0) continue;
        CHECK(a[k].send_start <= a[k].received && a[k].received <= a[k].computed);
        CHECK(a[k].computed <= a[k].return_start && a[k].return_start <= a[k].return_end);
        CHECK(fabs(a[k].idle - (a[k].return_start - a[k].computed)) <= 1e-9 * a[k].return_end);
        if (a[k].return_end > last) last = a[k].return_end;
    }
    for (size_t k = 0; k < n && n <= 64; k++) CHECK(seen_send[k] == 1 && seen_return[k] == 1 && seen_rank[k] == 1);
    CHECK(offset == items && s->items == items && members == s->members);
    CHECK(last == s->makespan);
    CHECK(s->lower_bound <= s->makespan && s->makespan <= s->bound);
}

static void test_returns(void) {
    divload_return_assignment a[RB];
    divload_returns_summary s;
    const uint32_t schedules[] = {DIVLOAD_SCHEDULE_BEST, DIVLOAD_SCHEDULE_LIFO, DIVLOAD_SCHEDULE_FIFO};
    const double makespans[] = {13139, 14983, 13448};
    for (int i = 0; i < 3; i++) {
        memset(&s, 0, sizeof s);
        CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, schedules[i], DIVLOAD_PORT_FULL_DUPLEX, a, RB, &s),
                     DIVLOAD_OK);
        CHECK(s.schedule == schedules[i] && s.port == DIVLOAD_PORT_FULL_DUPLEX);
        if (fabs(s.makespan - makespans[i]) > 0.5) {
            fprintf(stderr, "schedule %u: makespan %.3f, expected %.0f\n", schedules[i], s.makespan, makespans[i]);
            failures++;
        }
        CHECK(s.makespan < s.even_split_makespan);
        check_returns_plan(a, RB, 1000, &s);
        for (size_t k = 0; k < RB; k++) {
            if (schedules[i] == DIVLOAD_SCHEDULE_LIFO) CHECK(a[k].return_position == RB - 1 - k);
            if (schedules[i] == DIVLOAD_SCHEDULE_FIFO) CHECK(a[k].return_position == k);
        }
    }
    /* LIFO: served by increasing c + d, everyone works, no idle time. */
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, DIVLOAD_SCHEDULE_LIFO, 0, a, RB, &s), DIVLOAD_OK);
    for (size_t k = 0; k < RB; k++) CHECK(a[k].rank == k && a[k].count > 0 && a[k].member == 1);
    /* The best scenario is neither LIFO nor FIFO: send (2, 1, 3), return (2, 3, 1) in the
       slides' numbering (ranks 1, 0, 2 and 1, 2, 0 here). */
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, DIVLOAD_SCHEDULE_BEST, 0, a, RB, &s), DIVLOAD_OK);
    CHECK(a[0].rank == 1 && a[1].rank == 0 && a[2].rank == 2);
    CHECK(a[0].return_position == 0 && a[2].return_position == 1 && a[1].return_position == 2);
    CHECK(fabs(s.throughput - 38.0 / 499.0) < 1e-12 && s.rational_optimal);
    /* Half duplex: slower than full duplex, still a valid plan. */
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, DIVLOAD_SCHEDULE_BEST, DIVLOAD_PORT_HALF_DUPLEX, a, RB, &s),
                 DIVLOAD_OK);
    CHECK(s.port == DIVLOAD_PORT_HALF_DUPLEX && s.makespan > 13139);
    check_returns_plan(a, RB, 1000, &s);

    /* Fewer items than workers, an MPI root with c = d = 0, and 40 workers (closed forms
       and local search): zero counts are fine and every invariant holds. */
    divload_return_worker many[40];
    for (int r = 0; r < 40; r++)
        many[r] = (divload_return_worker){r == 0 ? 0.0 : 1e-3 * (1 + r % 7), 1e-2 * (1 + r % 5),
                                          r == 0 ? 0.0 : 5e-4 * (1 + r % 3)};
    static divload_return_assignment big[40];
    for (int i = 0; i < 3; i++) {
        const uint64_t item_counts[] = {2, 100000};
        for (int j = 0; j < 2; j++) {
            CHECK_STATUS(divload_plan_returns(many, 40, item_counts[j], schedules[i], 0, big, 40, &s), DIVLOAD_OK);
            check_returns_plan(big, 40, item_counts[j], &s);
            if (j == 0) CHECK(s.participating <= 2);
        }
    }

    /* Errors: status, message, outputs untouched. */
    divload_return_assignment a0[RB];
    divload_returns_summary s0;
    memset(a0, 0x5a, sizeof a0);
    memset(&s0, 0x5a, sizeof s0);
    memcpy(a, a0, sizeof a);
    s = s0;
    CHECK_STATUS(divload_plan_returns(NULL, RB, 1000, 0, 0, a, RB, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strstr(last_error(), "workers") != NULL);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 0, 0, NULL, RB, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strstr(last_error(), "out") != NULL);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, 0, 1000, 0, 0, a, RB, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "at least one worker") != NULL);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 0, 0, 0, a, RB, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "items: must be at least 1, got 0") == 0);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, (1ULL << 53) + 1, 0, 0, a, RB, &s), DIVLOAD_OVERFLOW);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 3, 0, a, RB, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "schedule: must be 0 (BEST), 1 (LIFO) or 2 (FIFO), got 3") == 0);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 0, 2, a, RB, &s), DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "port: must be 0 (FULL_DUPLEX) or 1 (HALF_DUPLEX), got 2") == 0);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 0, 0, a, RB - 1, &s), DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(strcmp(last_error(), "out: buffer too small, need 3, got 2") == 0);
    const double bad[] = {NAN, INFINITY, -1.0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        divload_return_worker b[RB];
        memcpy(b, PLATFORM_B, sizeof b);
        b[1].return_per_item = bad[i];
        CHECK_STATUS(divload_plan_returns(b, RB, 1000, DIVLOAD_SCHEDULE_LIFO, 0, a, RB, &s), DIVLOAD_INVALID_INPUT);
        CHECK(strncmp(last_error(), "worker 1: return_per_item must be finite and >= 0", 49) == 0);
        memcpy(b, PLATFORM_B, sizeof b);
        b[2].comp_per_item = bad[i] < 0 ? 0.0 : bad[i];
        CHECK_STATUS(divload_plan_returns(b, RB, 1000, DIVLOAD_SCHEDULE_FIFO, 0, a, RB, &s), DIVLOAD_INVALID_INPUT);
        CHECK(strncmp(last_error(), "worker 2: comp_per_item must be finite and > 0", 46) == 0);
    }
    /* Misaligned pointers (built from a byte buffer: never dereferenced by the library). */
    static _Alignas(16) unsigned char raw[sizeof(divload_return_worker) * RB + sizeof(divload_returns_summary) + 16];
    memcpy(raw + 1, PLATFORM_B, sizeof PLATFORM_B);
    CHECK_STATUS(divload_plan_returns((const divload_return_worker *)(void *)(raw + 1), RB, 1000, 0, 0, a, RB, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "workers: pointer is not aligned") != NULL);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 0, 0, (divload_return_assignment *)(void *)(raw + 4), RB, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "out: pointer is not aligned") != NULL);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 0, 0, a, RB, (divload_returns_summary *)(void *)(raw + 2)),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "summary: pointer is not aligned") != NULL);
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, SIZE_MAX, 1000, 0, 0, a, SIZE_MAX, &s), DIVLOAD_OVERFLOW);
    CHECK(memcmp(a, a0, sizeof a) == 0 && memcmp(&s, &s0, sizeof s) == 0);
    /* A null summary is allowed. */
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, 0, 0, a, RB, NULL), DIVLOAD_OK);
}

/* A scenario chosen by the caller: the best one of platform B gives the best plan, LIFO's
   gives LIFO's, a subset leaves the others out; the lower bound is still over every
   scenario, so the gap says how far a chosen scenario is from the best. */
static void test_returns_scenario(void) {
    divload_return_assignment a[RB], best[RB];
    divload_returns_summary s, sb;
    CHECK_STATUS(divload_plan_returns(PLATFORM_B, RB, 1000, DIVLOAD_SCHEDULE_BEST, 0, best, RB, &sb), DIVLOAD_OK);
    const size_t send[] = {1, 0, 2}, ret[] = {1, 2, 0};
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, send, ret, 3, a, RB, &s), DIVLOAD_OK);
    CHECK(s.schedule == DIVLOAD_SCHEDULE_GIVEN && s.members == 3 && s.rational_optimal);
    CHECK(fabs(s.throughput - 38.0 / 499.0) < 1e-12 && s.makespan == sb.makespan && s.lower_bound == sb.lower_bound);
    for (size_t k = 0; k < RB; k++) CHECK(a[k].rank == best[k].rank && a[k].count == best[k].count);
    check_returns_plan(a, RB, 1000, &s);

    const size_t lifo_send[] = {0, 1, 2}, lifo_ret[] = {2, 1, 0};
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, lifo_send, lifo_ret, 3, a, RB, &s),
                 DIVLOAD_OK);
    CHECK(fabs(s.throughput - 271.0 / 4060.0) < 1e-12 && s.lower_bound == sb.lower_bound);
    CHECK(fabs(s.makespan - 14983) <= 0.5);
    check_returns_plan(a, RB, 1000, &s);

    const size_t one[] = {2};
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, DIVLOAD_PORT_HALF_DUPLEX, one, one, 1, a, RB, &s),
                 DIVLOAD_OK);
    CHECK(s.members == 1 && a[0].rank == 2 && a[0].count == 1000 && s.port == DIVLOAD_PORT_HALF_DUPLEX);
    /* One worker alone: 1000·(12 + 5 + 12) seconds. */
    CHECK(fabs(s.makespan - 29000) <= 1e-9 * 29000);
    check_returns_plan(a, RB, 1000, &s);

    /* Errors: status, message, outputs untouched. */
    divload_return_assignment a0[RB];
    divload_returns_summary s0;
    memset(a0, 0x5a, sizeof a0);
    memset(&s0, 0x5a, sizeof s0);
    memcpy(a, a0, sizeof a);
    s = s0;
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, NULL, ret, 3, a, RB, &s),
                 DIVLOAD_NULL_PARAMETER);
    CHECK(strstr(last_error(), "send") != NULL);
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, send, NULL, 3, a, RB, &s),
                 DIVLOAD_NULL_PARAMETER);
    CHECK(strstr(last_error(), "ret") != NULL);
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, send, ret, 0, a, RB, &s),
                 DIVLOAD_INVALID_INPUT);
    const size_t twice[] = {1, 1, 2}, outside[] = {1, 0, 3}, other[] = {1, 2};
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, twice, ret, 3, a, RB, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "send") != NULL);
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, send, outside, 3, a, RB, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "return") != NULL);
    const size_t send2[] = {1, 0};
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, send2, other, 2, a, RB, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 2, send, ret, 3, a, RB, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strcmp(last_error(), "port: must be 0 (FULL_DUPLEX) or 1 (HALF_DUPLEX), got 2") == 0);
    CHECK_STATUS(divload_plan_returns_scenario(PLATFORM_B, RB, 1000, 0, send, ret, 3, a, RB - 1, &s),
                 DIVLOAD_BUFFER_TOO_SMALL);
    static divload_return_worker wide[300];
    static size_t order[300];
    static divload_return_assignment wide_out[300];
    for (size_t r = 0; r < 300; r++) {
        wide[r] = (divload_return_worker){1e-3, 1e-2, 1e-3};
        order[r] = r;
    }
    CHECK_STATUS(divload_plan_returns_scenario(wide, 300, 1000, 0, order, order, 257, wide_out, 300, &s),
                 DIVLOAD_OVERFLOW);
    CHECK(strstr(last_error(), "256") != NULL);
    CHECK(memcmp(a, a0, sizeof a) == 0 && memcmp(&s, &s0, sizeof s) == 0);
    /* 256 members, the most a scenario may have, in FIFO order. */
    CHECK_STATUS(divload_plan_returns_scenario(wide, 300, 100000, 0, order, order, 256, wide_out, 300, &s), DIVLOAD_OK);
    CHECK(s.members == 256 && s.lower_bound <= s.makespan);
}

static void test_last_error_truncates(void) {
    divload_worker w[1] = {{0, 0, 0, NAN}};
    int c[1], d[1];
    CHECK_STATUS(divload_plan_counts(w, 1, 0, 10, NULL, c, 1, d, 1, NULL), DIVLOAD_INVALID_INPUT);
    char buf[8];
    memset(buf, 'z', sizeof buf);
    size_t full = divload_last_error_message(buf, sizeof buf);
    CHECK(full == strlen("worker 0: comp_per_item must be finite and > 0, got NaN"));
    CHECK(strcmp(buf, "worker ") == 0);
    CHECK(divload_last_error_message(NULL, 0) == full);
}

/* A whole file into a NUL-terminated buffer, or NULL. */
static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            char *more = (char *)realloc(buf, cap);
            if (more == NULL) break;
            buf = more;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    if (buf != NULL) buf[n] = '\0';
    *len = n;
    return buf;
}

/* divload_plan_shares on every model's example (examples/MODEL.json, the files the page
 * loads) and the further ones (related and learned partitions, a ring over shared links): counts sum to the items, the placed workers' positions are 0 .. participating - 1,
 * blocks follow each other in position order, and every worker's count and displacement
 * is its row of divload_plan_json's result. */
static void test_plan_shares(void) {
    static const char *const files[] = {"examples/scatter.json", "examples/returns.json",
                                        "examples/multicluster.json", "examples/partition.json",
                                        "examples/ring.json", "examples/table1.json",
                                        "examples/partition_sort.json", "examples/partition_learned.json",
                                        "examples/ring_network.json"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len = 0, n = 0;
        char *text = read_file(files[f], &len);
        CHECK(text != NULL);
        if (text == NULL) continue;
        divload_plan_summary s;
        CHECK_STATUS(divload_plan_shares(text, len, NULL, 0, &n, &s), DIVLOAD_NULL_PARAMETER);
        divload_share probe[1];
        n = 0;
        divload_status st = divload_plan_shares(text, len, probe, 1, &n, &s);
        CHECK(st == DIVLOAD_OK || (st == DIVLOAD_BUFFER_TOO_SMALL && n > 1));
        divload_share *out = (divload_share *)calloc(n, sizeof *out);
        divload_share *by_position = (divload_share *)calloc(n, sizeof *out);
        size_t doc_len = 0;
        char *doc = NULL;
        CHECK_STATUS(divload_plan_json(text, len, NULL, 0, &doc_len), DIVLOAD_NULL_PARAMETER);
        static char probe_doc[1];
        (void)divload_plan_json(text, len, probe_doc, 0, &doc_len);
        doc = (char *)malloc(doc_len);
        CHECK(out != NULL && by_position != NULL && doc != NULL);
        if (out == NULL || by_position == NULL || doc == NULL) {
            free(out), free(by_position), free(doc), free(text);
            continue;
        }
        size_t m = 0;
        CHECK_STATUS(divload_plan_shares(text, len, out, n, &m, &s), DIVLOAD_OK);
        CHECK_STATUS(divload_plan_json(text, len, doc, doc_len, &doc_len), DIVLOAD_OK);
        CHECK(m == n && s.workers == n && s.participating >= 1 && s.participating <= n);
        CHECK(s.lower_bound <= s.makespan && s.gap >= 0.0);
        CHECK(memchr(s.method, '\0', sizeof s.method) != NULL);
        char method[64];
        snprintf(method, sizeof method, "\"method\":\"%s\"", s.method);
        CHECK(strstr(doc, method) != NULL);
        uint64_t sum = 0;
        size_t placed = 0;
        for (size_t k = 0; k < n; k++) {
            sum += out[k].count;
            if (out[k].position < 0) {
                CHECK(out[k].position == -1 && out[k].count == 0);
                continue;
            }
            placed++;
            CHECK((size_t)out[k].position < n);
            if ((size_t)out[k].position < n) by_position[out[k].position] = out[k];
            char row[160];
            snprintf(row, sizeof row, "\"rank\":%zu,", k);
            const char *at = strstr(doc, row);
            CHECK(at != NULL);
            if (at != NULL && out[k].count > 0) {
                char count[96];
                snprintf(count, sizeof count, "\"count\":%llu,\"displacement\":%llu",
                         (unsigned long long)out[k].count, (unsigned long long)out[k].displacement);
                const char *c = strstr(at, count), *next = strstr(at + 1, "\"rank\":");
                CHECK(c != NULL && (next == NULL || c < next));
            }
        }
        CHECK(placed == s.participating && sum == s.items);
        /* Positions are distinct (each filled once), and blocks follow each other. */
        uint64_t next = 0;
        for (size_t p = 0; p < placed; p++) {
            if (by_position[p].count == 0) continue;
            CHECK(by_position[p].displacement == next);
            next += by_position[p].count;
        }
        CHECK(next == sum);
        /* One fewer than needed: nothing written, the size asked for. */
        memset(by_position, 0x5a, n * sizeof *by_position);
        memcpy(out, by_position, n * sizeof *out);
        m = 12345;
        if (n > 1) {
            CHECK_STATUS(divload_plan_shares(text, len, out, n - 1, &m, &s), DIVLOAD_BUFFER_TOO_SMALL);
            CHECK(m == n && memcmp(out, by_position, n * sizeof *out) == 0);
        }
        CHECK_STATUS(divload_plan_shares(text, len, out, n, NULL, &s), DIVLOAD_NULL_PARAMETER);
        CHECK(strcmp(last_error(), "out_n: must not be a null pointer") == 0);
        CHECK_STATUS(divload_plan_shares(text, len - 2, out, n, &m, &s), DIVLOAD_JSON);
        CHECK(memcmp(out, by_position, n * sizeof *out) == 0);
        CHECK_STATUS(divload_plan_shares(text, len, out, n, &m, NULL), DIVLOAD_OK);
        free(out);
        free(by_position);
        free(doc);
        free(text);
    }
    /* A processor too slow and too far for the ring is left out with no columns. */
    static const char ring[] =
        "{\"model\": \"ring\", \"work\": 100, \"boundary\": 1, \"solver\": \"exact\", \"processors\": ["
        "{\"name\": \"a\", \"cycle_time\": 1}, {\"name\": \"b\", \"cycle_time\": 1}, "
        "{\"name\": \"c\", \"cycle_time\": 1000}], "
        "\"cost_matrix\": [[0, 0.01, 100], [0.01, 0, 100], [100, 100, 0]]}";
    divload_share out[3];
    divload_plan_summary s;
    size_t n = 0;
    CHECK_STATUS(divload_plan_shares(ring, strlen(ring), out, 3, &n, &s), DIVLOAD_OK);
    CHECK(n == 3 && out[2].position == -1 && out[2].count == 0 && out[0].count + out[1].count == 100);
    CHECK(s.participating == 2 && s.exact && strcmp(s.method, "exhaustive") == 0);
    CHECK_STATUS(divload_plan_shares(NULL, 0, out, 3, &n, &s), DIVLOAD_NULL_PARAMETER);
    CHECK(strcmp(last_error(), "json: must not be a null pointer") == 0);
    static _Alignas(16) unsigned char raw[sizeof(divload_plan_summary) + 16];
    CHECK_STATUS(divload_plan_shares(ring, strlen(ring), out, 3, &n, (divload_plan_summary *)(void *)(raw + 4)),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "summary: pointer is not aligned") != NULL);
    CHECK_STATUS(divload_plan_shares(ring, strlen(ring), (divload_share *)(void *)(raw + 1), 3, &n, &s),
                 DIVLOAD_INVALID_INPUT);
    CHECK(strstr(last_error(), "out: pointer is not aligned") != NULL);
}

/* A workspace kept between plans (issue 45): the same counts as the plain calls, for a
 * platform that grows and shrinks; a NULL workspace plans as the plain call; bad
 * arguments are statuses; the workspace is freed once (valgrind and ASan watch it). */
static void test_workspace(void) {
    divload_workspace *ws = NULL;
    CHECK(divload_workspace_create(P, &ws) == DIVLOAD_OK && ws != NULL);
    CHECK(divload_workspace_create(P, NULL) == DIVLOAD_NULL_PARAMETER);
    divload_worker w[P];
    table1(w);
    size_t sizes[] = {P, 3, P, 1};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t p = sizes[k];
        int c1[P], d1[P], c2[P], d2[P];
        int64_t c3[P], d3[P], c4[P], d4[P];
        divload_summary s1, s2;
        CHECK(divload_plan_counts(w, p, 0, 817101, NULL, c1, P, d1, P, &s1) == DIVLOAD_OK);
        CHECK(divload_workspace_plan_counts(ws, w, p, 0, 817101, NULL, c2, P, d2, P, &s2) == DIVLOAD_OK);
        CHECK(memcmp(c1, c2, p * sizeof *c1) == 0 && memcmp(d1, d2, p * sizeof *d1) == 0);
        CHECK(s1.makespan == s2.makespan && s1.lower_bound == s2.lower_bound);
        CHECK(divload_plan_counts64(w, p, 0, 817101, NULL, c3, P, d3, P, NULL) == DIVLOAD_OK);
        CHECK(divload_workspace_plan_counts64(ws, w, p, 0, 817101, NULL, c4, P, d4, P, NULL) == DIVLOAD_OK);
        CHECK(memcmp(c3, c4, p * sizeof *c3) == 0 && memcmp(d3, d4, p * sizeof *d3) == 0);
    }
    int c[P], d[P];
    CHECK(divload_workspace_plan_counts(NULL, w, P, 0, 1000, NULL, c, P, d, P, NULL) == DIVLOAD_OK);
    CHECK(divload_workspace_plan_counts(ws, w, P, 0, (uint64_t)INT_MAX + 1, NULL, c, P, d, P, NULL) ==
          DIVLOAD_OVERFLOW);
    CHECK(divload_workspace_plan_counts(ws, NULL, P, 0, 1000, NULL, c, P, d, P, NULL) == DIVLOAD_NULL_PARAMETER);
    CHECK(divload_workspace_plan_counts(ws, w, P, 0, 1000, NULL, c, P - 1, d, P, NULL) == DIVLOAD_BUFFER_TOO_SMALL);
    CHECK(divload_workspace_free(ws) == DIVLOAD_OK);
    CHECK(divload_workspace_free(NULL) == DIVLOAD_OK);
}

int main(void) {
    test_version();
    test_status_messages();
    test_misaligned_summary();
    test_table1();
    test_zero_counts();
    test_bad_input();
    test_root_link_ignored();
    test_json();
    test_json_solvers();
    test_json_strict();
    test_models();
    test_returns_json();
    test_returns();
    test_returns_scenario();
    test_multicluster_json();
    test_multicluster_counts();
    test_plan_shares();
    test_last_error_truncates();
    test_workspace();
    if (failures) {
        fprintf(stderr, "test_capi: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_capi: all checks passed (libdivload %s)\n", DIVLOAD_VERSION_STRING);
    return 0;
}
