/* The C side of python/bench/scatter.py: plans the workers of a binary file (p records of
 * four doubles: comm_latency, comm_per_item, comp_latency, comp_per_item) with the C
 * ABI's divload_plan_counts64 (counts and displacements by rank, what scatter_counts
 * returns) or divload_plan (the full plan in send order), and prints the seconds of the
 * call alone: reading the file and allocating the outputs are not timed. `counts64-ws`
 * plans twice in one workspace (divload_workspace_plan_counts64) and times the second
 * call: what an MPI code that re-plans each iteration pays (issue 45).
 *
 * Usage: plan_c FILE ITEMS ROUNDING(DIVLOAD_ROUNDING_*: 0 greedy, 1 largest remainder, 2 paper) counts64|counts64-ws|plan */
#define _POSIX_C_SOURCE 199309L
#include <divload.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE ITEMS ROUNDING counts64|counts64-ws|plan\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) return 2;
    fseek(f, 0, SEEK_END);
    size_t p = (size_t)ftell(f) / sizeof(divload_worker);
    fseek(f, 0, SEEK_SET);
    divload_worker *w = malloc(p * sizeof *w);
    if (w == NULL || fread(w, sizeof *w, p, f) != p) return 2;
    fclose(f);
    unsigned long long items = strtoull(argv[2], NULL, 10);
    divload_options opts = {0};
    opts.rounding = (uint32_t)atoi(argv[3]);
    divload_summary s;
    divload_status st;
    double t0, t1;
    if (strcmp(argv[4], "plan") == 0) {
        divload_assignment *a = malloc(p * sizeof *a);
        t0 = now();
        st = divload_plan(w, p, 0, items, &opts, a, p, &s);
        t1 = now();
        free(a);
    } else if (strcmp(argv[4], "counts64-ws") == 0) {
        int64_t *counts = malloc(p * sizeof *counts), *displs = malloc(p * sizeof *displs);
        divload_workspace *ws = NULL;
        st = divload_workspace_create(p, &ws);
        if (st == DIVLOAD_OK) st = divload_workspace_plan_counts64(ws, w, p, 0, items, &opts, counts, p, displs, p, &s);
        t0 = now();
        if (st == DIVLOAD_OK) st = divload_workspace_plan_counts64(ws, w, p, 0, items, &opts, counts, p, displs, p, &s);
        t1 = now();
        divload_workspace_free(ws);
        free(counts);
        free(displs);
    } else {
        int64_t *counts = malloc(p * sizeof *counts), *displs = malloc(p * sizeof *displs);
        t0 = now();
        st = divload_plan_counts64(w, p, 0, items, &opts, counts, p, displs, p, &s);
        t1 = now();
        free(counts);
        free(displs);
    }
    if (st != DIVLOAD_OK) {
        fprintf(stderr, "divload: status %d\n", (int)st);
        return 1;
    }
    printf("%.9f %.17g\n", t1 - t0, s.makespan);
    free(w);
    return 0;
}
