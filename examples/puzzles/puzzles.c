/* puzzles: bugs behind values no mutation finds in practice, but a
 * solver does. Reads lines from the file named on the command line:
 *  - "magic N": check_magic crashes when N is 0xDEADBEEF (a 32-bit
 *    magic compare);
 *  - "word W": check_word crashes when W is the keyword "xyzzy" (strcmp);
 *  - "sum W": check_sum crashes when a checksum over W's first four bytes
 *    is 0x39242e (and they are letters);
 *  - "cmd C": run_cmd switches on C's first character; 'q' followed by
 *    '!' crashes.
 * Expected: exit 0 on every input but those four (SIGSEGV); exit 1 when
 * the file cannot be read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_magic(unsigned v) {
    if (v == 0xDEADBEEFu) *(volatile int *)0 = 1; /* the magic value */
    return (int)(v % 7);
}

int check_word(const char *w) {
    if (strcmp(w, "xyzzy") == 0) *(volatile int *)0 = 2; /* the keyword */
    return (int)strlen(w);
}

int check_sum(const char *w) {
    if (strlen(w) < 4) return 0;
    unsigned h = 0;
    for (int i = 0; i < 4; i++) {
        if (w[i] < 'a' || w[i] > 'z') return -1;
        h = h * 31 + (unsigned char)w[i];
    }
    if (h == 0x39242eu) *(volatile int *)0 = 3; /* the checksum */
    return (int)(h & 0xff);
}

int run_cmd(const char *c) {
    switch (c[0]) {
    case 'p': return 1;
    case 'd': return 2;
    case 's': return 3;
    case 'q':
        if (c[1] == '!') *(volatile int *)0 = 4; /* quit, forced */
        return 4;
    default: return 0;
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: puzzles FILE\n"); return 1; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (strncmp(line, "magic ", 6) == 0) printf("magic %d\n", check_magic((unsigned)strtoul(line + 6, NULL, 10)));
        else if (strncmp(line, "word ", 5) == 0) printf("word %d\n", check_word(line + 5));
        else if (strncmp(line, "sum ", 4) == 0) printf("sum %d\n", check_sum(line + 4));
        else if (strncmp(line, "cmd ", 4) == 0) printf("cmd %d\n", run_cmd(line + 4));
    }
    fclose(f);
    return 0;
}
