/* check: totals the numbers of a file, or checks the totals written in it.
 * Usage: check [-c] [-q] FILE
 * Prints the sum of the numbers of FILE, one per line. With -c, a line
 * "sum: N" checks N against the numbers read since the last such line
 * and prints their mean; -q prints nothing but failures.
 *  - with -c, a "sum:" line before any number divides by a count of zero
 *    (SIGFPE). The only seed has no -c, and its command line has no word
 *    that could become one: the option has to be added after the file
 *    (getopt permutes), then the file rewritten.
 * Expected: exit 0 on every input but those (SIGFPE); exit 1 when a
 * total does not match or FILE cannot be read, exit 2 on a bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int check = 0, quiet = 0, c;
    while ((c = getopt(argc, argv, "cq")) != -1) {
        switch (c) {
        case 'c':
            check = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        default:
            fputs("Usage: check [-c] [-q] FILE\n", stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fputs("Usage: check [-c] [-q] FILE\n", stderr);
        return 2;
    }
    FILE *f = fopen(argv[optind], "r");
    if (!f)
        return 1;
    char line[256];
    long total = 0, count = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (check && strncmp(line, "sum:", 4) == 0) {
            long want = atol(line + 4);
            long mean = total / count; /* count may be 0: the bug */
            if (want != total) {
                printf("sum %ld, expected %ld\n", total, want);
                bad = 1;
            } else if (!quiet) {
                printf("ok: %ld numbers, mean %ld\n", count, mean);
            }
            total = count = 0;
            continue;
        }
        total += atol(line);
        count++;
    }
    fclose(f);
    if (!check)
        printf("%ld\n", total);
    return (int)bad;
}
