/* boundary: reads lines "scale N", "key WORD" and "digit D" from the file
 * named on the command line. Two real bugs hide behind values random
 * mutation practically never produces, and one trap that is not a bug:
 *  - scale_row crashes on INT_MIN (its absolute value is still negative);
 *  - check_key crashes on a key made only of 0xFF bytes (4 or more);
 *  - digit_name crashes on values outside 0..9, but main never passes
 *    it one: a unit-level failure that must not be reported.
 * Expected: exit 0 on every input except those reaching the two bugs
 * (SIGSEGV); exit 1 when the file cannot be read. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *names[10] = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};
static int table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

const char *digit_name(int d) {
    if (d < 0 || d > 9) *(volatile int *)0 = d; /* never reached from main */
    return names[d];
}

int scale_row(int factor) {
    unsigned u = factor < 0 ? 0u - (unsigned)factor : (unsigned)factor;
    if (u > INT_MAX) *(volatile int *)0 = factor; /* the bug: INT_MIN */
    return table[u % 16] * 2;
}

int check_key(const char *key) {
    size_t n = strlen(key), ff = 0;
    for (size_t i = 0; i < n; i++) ff += (unsigned char)key[i] == 0xff;
    if (n >= 4 && ff == n) *(volatile char *)0 = key[0]; /* the bug */
    return (int)n;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: boundary FILE\n"); return 1; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "scale ", 6) == 0) {
            char *end;
            long v = strtol(line + 6, &end, 10);
            if (v >= INT_MIN && v <= INT_MAX) printf("scale %d\n", scale_row((int)v));
        } else if (strncmp(line, "key ", 4) == 0) {
            printf("key %d\n", check_key(line + 4));
        } else if (strncmp(line, "digit ", 6) == 0) {
            int d = atoi(line + 6);
            if (d >= 0 && d <= 9) printf("digit %s\n", digit_name(d));
        }
    }
    fclose(f);
    return 0;
}
