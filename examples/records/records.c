/* records FILE: reads a file of "key=value" lines after the header line
 * "records 1", and prints each record. A record keyed "halt" whose value's
 * bytes add up to 500 aborts: the seed has no such line, and random
 * mutation of the file does not write one; a solver that sees the file's
 * bytes as the program reads them does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checksum(const char *v) {
    int sum = 0;
    while (*v)
        sum += (unsigned char)*v++;
    return sum;
}

static void record(const char *line, int n) {
    int eq = 0;
    while (line[eq] && line[eq] != '=')
        eq++;
    if (!line[eq]) {
        printf("%d: no '='\n", n);
        return;
    }
    if (eq == 4 && memcmp(line, "halt", 4) == 0) {
        if (checksum(line + 5) == 500)
            abort();
        printf("%d: halt ignored\n", n);
        return;
    }
    printf("%d: %.*s is %s\n", n, eq, line, line + eq + 1);
}

int main(int argc, char **argv) {
    FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
    char line[256];
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    /* The header with fgets, the records a character at a time. */
    if (!fgets(line, sizeof line, f) || strcmp(line, "records 1\n") != 0) {
        fprintf(stderr, "records: not a records file\n");
        return 1;
    }
    int n = 0, len = 0, c;
    while ((c = getc(f)) != EOF) {
        if (c == '\n' || len == (int)sizeof line - 1) {
            line[len] = 0;
            record(line, ++n);
            len = 0;
        } else {
            line[len++] = (char)c;
        }
    }
    if (len > 0) {
        line[len] = 0;
        record(line, ++n);
    }
    printf("%d records\n", n);
    return 0;
}
