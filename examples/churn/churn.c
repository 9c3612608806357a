/* churn: symbolic work without end, which the explorer must bound. Reads
 * lines "mix W" from the file named on the command line: mix_rounds
 * hashes W 200000 times with a branch per round (thousands of symbolic
 * branches, an expression DAG past the runtime's bounds, solver queries
 * that time out). Expected: exit 0; exit 1 when the file cannot be read. */
#include <stdio.h>
#include <string.h>

unsigned mix_rounds(const char *w) {
    unsigned h = 2166136261u, odd = 0;
    size_t n = strlen(w);
    if (n == 0) return 0;
    for (unsigned i = 0; i < 200000; i++) {
        h = (h ^ (unsigned char)w[i % n]) * 16777619u;
        if (h & 1) odd++;
    }
    return odd;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: churn FILE\n"); return 1; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "mix ", 4) == 0) printf("mix %u\n", mix_rounds(line + 4));
    }
    fclose(f);
    return 0;
}
