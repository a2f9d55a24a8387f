/* libdivload under memory limits (issue 46): an MPI rank that links the library must get
 * DIVLOAD_OUT_OF_MEMORY when the plan's memory cannot be had, never an abort (Rust's
 * standard library aborts the process when an allocation it cannot refuse fails).
 *
 * For a document of each model whose plan needs tens of MB, the calls run in a child
 * process whose address space may grow by a budget beyond what it holds
 * (setrlimit(RLIMIT_AS)): the least budget at which divload_plan_json plans is found by
 * bisection, then budgets evenly spaced from 0 to just above it are tried, through
 * divload_plan_json and, in turn, divload_plan_shares (divload_plan_multicluster for the
 * multi-cluster document). Every call must return DIVLOAD_OK, or DIVLOAD_OUT_OF_MEMORY
 * with a message naming what could not be allocated; a child killed by a signal or
 * returning another status fails the test.
 *
 * Run by tests/c/run without sanitizers and outside valgrind: both reserve address space
 * of their own, which the limit would count. */
#define _POSIX_C_SOURCE 200809L
#include "divload.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static int failures = 0;

/* A document being built: text appended with printf formats. */
typedef struct {
    char *text;
    size_t len, cap;
} doc;

static void add(doc *d, const char *fmt, ...) {
    if (d->text == NULL) {
        d->cap = 4096;
        d->text = (char *)malloc(d->cap);
        if (d->text == NULL) abort();
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(d->text + d->len, d->cap - d->len, fmt, ap);
        va_end(ap);
        if (n < 0) abort();
        if (d->len + (size_t)n < d->cap) {
            d->len += (size_t)n;
            return;
        }
        d->cap = 2 * (d->len + (size_t)n) + 4096;
        d->text = (char *)realloc(d->text, d->cap);
        if (d->text == NULL) abort();
    }
}

/* The address space this process holds, in bytes (/proc/self/statm: pages). */
static size_t address_space(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (f == NULL || fscanf(f, "%lu", &pages) != 1) abort();
    fclose(f);
    return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

enum call { PLAN_JSON, PLAN_SHARES, PLAN_MULTICLUSTER };
static const char *const CALLS[] = {"divload_plan_json", "divload_plan_shares", "divload_plan_multicluster"};

/* The sizes the outputs need, from a call without a limit. */
typedef struct {
    size_t doc_len, workers;
} sizes;

/* Calls `call` on `d` in a child whose address space may grow by `budget` bytes past what
 * it holds with its output buffers allocated (the caller's memory). Returns 1 when it
 * planned, 0 when it returned DIVLOAD_OUT_OF_MEMORY (its message, which names what could
 * not be allocated, in `message`); anything else is a failure, counted, and returns -1. */
static int run(const char *name, const doc *d, enum call call, const sizes *need, size_t budget,
               char message[256]) {
    int fds[2];
    if (pipe(fds) != 0) abort();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        close(fds[0]);
        size_t n = 0;
        char *out = (char *)malloc(need->doc_len + 1);
        divload_share *shares = (divload_share *)calloc(need->workers, sizeof *shares);
        divload_multicluster_processor *procs =
            (divload_multicluster_processor *)calloc(need->workers, sizeof *procs);
        if (out == NULL || shares == NULL || procs == NULL) _exit(3);
        size_t limit = address_space() + budget;
        struct rlimit r = {limit, limit};
        if (setrlimit(RLIMIT_AS, &r) != 0) _exit(3);
        divload_status st =
            call == PLAN_JSON     ? divload_plan_json(d->text, d->len, out, need->doc_len + 1, &n)
            : call == PLAN_SHARES ? divload_plan_shares(d->text, d->len, shares, need->workers, &n, NULL)
                                  : divload_plan_multicluster(d->text, d->len, procs, need->workers, &n, NULL);
        if (st == DIVLOAD_OK) _exit(0);
        char m[256];
        divload_last_error_message(m, sizeof m);
        if (write(fds[1], m, strlen(m)) < 0) _exit(3);
        _exit(st == DIVLOAD_OUT_OF_MEMORY && strstr(m, ": cannot allocate ") != NULL ? 1 : 2);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], message, 255);
    message[got > 0 ? got : 0] = '\0';
    close(fds[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) abort();
    if (WIFEXITED(status) && WEXITSTATUS(status) <= 1) return WEXITSTATUS(status) == 0;
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: %s with a budget of %zu bytes: killed by signal %d (%s)\n", name, CALLS[call], budget,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        fprintf(stderr, "%s: %s with a budget of %zu bytes: exit status %d: %s\n", name, CALLS[call], budget,
                WEXITSTATUS(status), message);
    }
    failures++;
    return -1;
}

/* The sizes the outputs need, from calls in a child without a limit: made here, the
 * plan's memory would stay in this process's heap, freed but mapped, and the children
 * forked from it would plan in it without asking for address space. */
static int sizes_of(const char *name, const doc *d, enum call call, sizes *need) {
    int fds[2];
    if (pipe(fds) != 0) abort();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) abort();
    if (pid == 0) {
        char probe[1];
        divload_share one[1];
        divload_multicluster_processor proc[1];
        sizes got = {0, 0};
        divload_status st = divload_plan_json(d->text, d->len, probe, 0, &got.doc_len);
        divload_status sh = call == PLAN_MULTICLUSTER
                                ? divload_plan_multicluster(d->text, d->len, proc, 1, &got.workers, NULL)
                                : divload_plan_shares(d->text, d->len, one, 1, &got.workers, NULL);
        if (st != DIVLOAD_BUFFER_TOO_SMALL || sh != DIVLOAD_BUFFER_TOO_SMALL) {
            char message[256];
            divload_last_error_message(message, sizeof message);
            fprintf(stderr, "%s: does not plan without a limit: %u, %u: %s\n", name, (unsigned)st, (unsigned)sh,
                    message);
            _exit(2);
        }
        _exit(write(fds[1], &got, sizeof got) == (ssize_t)sizeof got ? 0 : 2);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], need, sizeof *need);
    close(fds[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) abort();
    if (got != (ssize_t)sizeof *need || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failures++;
        return 0;
    }
    return 1;
}

/* The sweep of one document: the need found through divload_plan_json, the budgets
 * tried through it and `other` in turn. */
static void sweep(const char *name, const doc *d, enum call other) {
    enum call call = PLAN_JSON;
    sizes need = {0, 0};
    if (!sizes_of(name, d, other, &need)) return;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char message[256], seen[1024] = "";
    int runs = 0, planned = 0, out_of_memory = 0;
    /* The least budget at which it plans: doubled from 16 MiB, then bisected to 512 KiB. */
    size_t lo = 0, hi = 16 * MIB;
    for (;;) {
        int r = run(name, d, call, &need, hi, message);
        runs++;
        if (r == 1) break;
        if (r < 0 || hi > 4096 * MIB) {
            fprintf(stderr, "%s: %s: does not plan within %zu bytes\n", name, CALLS[call], hi);
            failures++;
            return;
        }
        lo = hi;
        hi *= 2;
    }
    while (hi - lo > MIB / 2) {
        size_t mid = lo + (hi - lo) / 2;
        int r = run(name, d, call, &need, mid, message);
        runs++;
        if (r < 0) return;
        *(r == 1 ? &hi : &lo) = mid;
    }
    /* Evenly from nothing to the need, then two steps above it, where it must plan. */
    enum { POINTS = 12 };
    for (size_t i = 0; i <= POINTS + 2; i++) {
        size_t budget = hi * i / POINTS;
        call = i % 2 ? other : PLAN_JSON;
        int r = run(name, d, call, &need, budget, message);
        runs++;
        if (r < 0) continue;
        planned += r == 1;
        out_of_memory += r == 0;
        if (r == 0) {
            /* What ran out: the message up to ": cannot allocate", kept once. */
            char *end = strstr(message, ": cannot allocate ");
            if (end != NULL) *end = '\0';
            if (strstr(seen, message) == NULL && strlen(seen) + strlen(message) + 3 < sizeof seen) {
                strcat(seen, seen[0] ? ", " : "");
                strcat(seen, message);
            }
        }
        if (r == 0 && i > POINTS) {
            fprintf(stderr, "%s: %s: out of memory with %zu bytes, above its need of %zu\n", name, CALLS[call],
                    budget, hi);
            failures++;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (hi < 16 * MIB) {
        fprintf(stderr, "%s: needs %zu bytes only: too small to cross large allocations\n", name, hi);
        failures++;
    }
    if (out_of_memory == 0) {
        fprintf(stderr, "%s: no budget of the sweep ran out of memory\n", name);
        failures++;
    }
    printf("%-12s needs %5.1f MiB: %2d runs of divload_plan_json and %-25s (%2d planned, %2d out of memory: %s), "
           "%.1f s\n",
           name, (double)hi / (double)MIB, runs, CALLS[other], planned, out_of_memory, seen,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
}

int main(void) {
    doc d = {NULL, 0, 0};

    /* The scatter, closed form: 80 001 workers. */
    add(&d, "{\"items\": 817101, \"root\": \"r\", \"workers\": [{\"name\": \"r\", \"comm_per_item\": 0, "
            "\"comp_per_item\": 0.009288}, {\"name\": \"w\", \"count\": 80000, \"comm_per_item\": 3.53e-5, "
            "\"comp_per_item\": 0.009677}]}");
    sweep("scatter", &d, PLAN_SHARES);

    /* The scatter by the exact DP over tabulated costs (issue 46's path): 4 000 items over
     * 3 002 workers, 48 MB of DP. */
    d.len = 0;
    add(&d, "{\"items\": 4000, \"root\": \"front\", \"solver\": \"exact\", \"workers\": ["
            "{\"name\": \"front\", \"count\": 3000, \"comm_per_item\": 0, \"comp_table\": [[1000, 0.9], [5000, 4.8], "
            "[10000, 10.1], [20000, 21.0]]}, {\"name\": \"fast\", \"count\": 2, \"comm_latency\": 0.002, "
            "\"comm_per_item\": 2e-5, \"comp_power\": {\"coeff\": 1.2e-8, \"exponent\": 2, \"latency\": 0.01}}]}");
    sweep("measured", &d, PLAN_SHARES);

    /* Return messages: 60 002 workers. */
    d.len = 0;
    add(&d, "{\"model\": \"returns\", \"items\": 1000, \"workers\": ["
            "{\"name\": \"p1\", \"comm_per_item\": 7, \"comp_per_item\": 6, \"return_per_item\": 7}, "
            "{\"name\": \"p2\", \"comm_per_item\": 8, \"comp_per_item\": 5, \"return_per_item\": 8}, "
            "{\"name\": \"p3\", \"count\": 60000, \"comm_per_item\": 12, \"comp_per_item\": 5, \"return_per_item\": 12}]}");
    sweep("returns", &d, PLAN_SHARES);

    /* Two clusters, 200 008 processors. */
    d.len = 0;
    add(&d, "{\"model\": \"multicluster\", \"clusters\": [{\"name\": \"a\", \"processors\": 8}, "
            "{\"name\": \"b\", \"processors\": 200000}], \"links\": {"
            "\"fast\": {\"latency\": 45e-6, \"overhead\": 5e-6, \"gap\": 0.05e-6}, "
            "\"slow\": {\"latency\": 400e-6, \"overhead\": 10e-6, \"gap\": 0.5e-6}}, "
            "\"application\": {\"pattern\": \"ring\", \"lattice\": 8192, \"flip_time\": 0.55e-6, \"steps\": 20}}");
    sweep("multicluster", &d, PLAN_MULTICLUSTER);

    /* The partition: 200 002 workers. */
    d.len = 0;
    add(&d, "{\"model\": \"partition\", \"items\": 1000000, \"workers\": ["
            "{\"name\": \"old\", \"comp_power\": {\"coeff\": 2e-7, \"exponent\": 1.1}}, "
            "{\"name\": \"mid\", \"count\": 200000, \"comp_per_item\": 1.5e-6}, "
            "{\"name\": \"new\", \"comp_table\": [[10000, 0.009], [100000, 0.1], [1000000, 1.15]]}]}");
    sweep("partition", &d, PLAN_SHARES);

    /* The ring: at most 1 024 processors and a cubic search, so the plan is made large by
     * long names, which its result repeats: 150 names of 40 000 bytes. */
    d.len = 0;
    enum { RING = 150, NAME = 40000 };
    static char name[NAME + 1];
    memset(name, 'x', NAME);
    uint64_t seed = 46;
    add(&d, "{\"model\": \"ring\", \"work\": 1000000000, \"boundary\": 200, \"local_search\": false, \"processors\": [");
    for (int i = 0; i < RING; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        add(&d, "%s{\"name\": \"p%d-%s\", \"cycle_time\": %.6g}", i ? ", " : "", i, name,
            1e-3 + 3e-3 * (double)(seed >> 11) / 9007199254740992.0);
    }
    add(&d, "], \"cost_matrix\": [");
    for (int i = 0; i < RING; i++) {
        add(&d, "%s[", i ? ", " : "");
        for (int j = 0; j < RING; j++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            add(&d, "%s%.6g", j ? ", " : "", i == j ? 0.0 : 1e-5 + 5e-4 * (double)(seed >> 11) / 9007199254740992.0);
        }
        add(&d, "]");
    }
    add(&d, "]}");
    sweep("ring", &d, PLAN_SHARES);

    free(d.text);
    if (failures) {
        fprintf(stderr, "test_oom: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_oom: every call planned or returned DIVLOAD_OUT_OF_MEMORY under every limit\n");
    return 0;
}
