/* csvstat: reads a CSV file named on the command line and prints, per
 * column, how many fields are numeric and their sum.
 * Expected: exit 0 on any readable file; exit 2 when the file cannot be
 * opened; exit 3 on a line of more than 64 fields. No known crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define MAX_COLS 64

static long sums[MAX_COLS];
static int numeric[MAX_COLS];

static int is_number(const char *s, size_t n) {
    size_t i = 0;
    if (n == 0) return 0;
    if (s[0] == '-' || s[0] == '+') i++;
    if (i == n) return 0;
    for (; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

static int parse_line(char *line, char sep) {
    int col = 0;
    char *start = line;
    for (char *p = line;; p++) {
        if (*p == sep || *p == '\n' || *p == '\0') {
            size_t n = (size_t)(p - start);
            if (col >= MAX_COLS) return -1;
            if (is_number(start, n)) {
                numeric[col]++;
                sums[col] += strtol(start, NULL, 10);
            }
            col++;
            if (*p != sep) break;
            start = p + 1;
        }
    }
    return col;
}

int main(int argc, char **argv) {
    char sep = ',';
    int argi = 1;
    if (argc > 2 && strcmp(argv[1], "-t") == 0) { sep = '\t'; argi = 2; }
    if (argi >= argc) { fprintf(stderr, "usage: csvstat [-t] FILE\n"); return 1; }
    FILE *f = fopen(argv[argi], "r");
    if (!f) { perror(argv[argi]); return 2; }
    char line[4096];
    int cols = 0, lines = 0;
    while (fgets(line, sizeof line, f)) {
        int c = parse_line(line, sep);
        if (c < 0) { fprintf(stderr, "too many fields on line %d\n", lines + 1); fclose(f); return 3; }
        if (c > cols) cols = c;
        lines++;
    }
    fclose(f);
    printf("%d lines, %d columns\n", lines, cols);
    for (int i = 0; i < cols; i++)
        printf("column %d: %d numeric, sum %ld\n", i + 1, numeric[i], sums[i]);
    return 0;
}
