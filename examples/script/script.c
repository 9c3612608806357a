/* script: a tiny line editor whose commands come from the command line
 * and whose interpreter lives in another file (commands.c), as sed's
 * does. Usage: script [-n] -e SCRIPT FILE
 * SCRIPT is a list of one-letter commands run on each line of FILE:
 * `p` prints the line, `u` upper-cases it, `r` reverses it, `d` drops it,
 * `x` exchanges it with the hold space; `;` and spaces separate commands;
 * other letters are kept for later versions and skipped. -n prints
 * nothing but what `p` prints.
 *  - A doubled capital (`ZZ`, `QQ`: reserved commands, commands.c)
 *    crashes: it calls a handler that is never filled (SIGSEGV). Only a
 *    letter that falls through the command switch, then is a capital
 *    and is doubled, reaches it.
 *  - `x` aborts on the first line it runs on: the hold space is never
 *    filled (SIGABRT). A unit replay of `main` meets it only if it reads
 *    the file the carving run read.
 * Expected: exit 0 on every input but those whose script holds a
 * doubled capital (SIGSEGV), or `x` with a FILE that has a line
 * (SIGABRT); exit 1 when FILE cannot be read, exit 2 on bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

int main(int argc, char **argv) {
    const char *script = NULL;
    int quiet = 0, c;
    while ((c = getopt(argc, argv, "ne:")) != -1) {
        switch (c) {
        case 'n':
            quiet = 1;
            break;
        case 'e':
            script = optarg;
            break;
        default:
            return 2;
        }
    }
    if (!script || optind != argc - 1) {
        fputs("Usage: script [-n] -e SCRIPT FILE\n", stderr);
        return 2;
    }
    struct program prog;
    if (compile(script, &prog) != 0) {
        fprintf(stderr, "script: bad script: %s\n", script);
        return 2;
    }
    FILE *f = fopen(argv[optind], "r");
    if (!f) {
        perror(argv[optind]);
        return 1;
    }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        run(&prog, line, quiet);
    }
    fclose(f);
    return 0;
}
