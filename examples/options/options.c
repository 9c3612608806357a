/* options: a small field cutter whose bugs hide behind a long option and
 * behind an escape.
 * Usage: options [-d DELIM] [-f N] [-s] [--only-delimited] [--debug]
 *        [--help] [--version] FILE
 * Prints field N (default 1) of each line of FILE, split at DELIM
 * (default tab), which may be an escape (`\t`, `\\`); -s skips lines
 * without DELIM.
 *  - `--debug` (or any unambiguous prefix, such as `--deb`) crashes: it
 *    prints a prefix that was never set (SIGSEGV). No seed has it, and a
 *    short word of a command line has to grow to hold it.
 *  - An escape other than those two aborts (SIGABRT: not implemented).
 *    On a command line the backslash has to be quoted (`-d '\x'`,
 *    `-d "\\"`).
 * Expected: exit 0 on every input but those (SIGSEGV, SIGABRT); exit 1
 * when FILE cannot be read, exit 2 on a bad option. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEBUG_OPTION = 256, HELP_OPTION, VERSION_OPTION };

static const struct option longopts[] = {
    {"delimiter", required_argument, NULL, 'd'},
    {"fields", required_argument, NULL, 'f'},
    {"only-delimited", no_argument, NULL, 's'},
    {"debug", no_argument, NULL, DEBUG_OPTION},
    {"help", no_argument, NULL, HELP_OPTION},
    {"version", no_argument, NULL, VERSION_OPTION},
    {NULL, 0, NULL, 0},
};

static const char *debug_prefix; /* never set: the bug */

/* The character the escape `\c` of a DELIM stands for. */
static char escape(char c) {
    if (c == 't')
        return '\t';
    if (c == '\\')
        return '\\';
    abort(); /* the second bug */
}

static void usage(int status) {
    fputs("Usage: options [-d DELIM] [-f N] [-s] [--debug] FILE\n", status ? stderr : stdout);
    exit(status);
}

int main(int argc, char **argv) {
    char delim = '\t';
    int field = 1, only_delimited = 0, debug = 0, c;
    while ((c = getopt_long(argc, argv, "d:f:s", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            delim = optarg[0] == '\\' ? escape(optarg[1]) : optarg[0];
            break;
        case 'f':
            field = atoi(optarg);
            break;
        case 's':
            only_delimited = 1;
            break;
        case DEBUG_OPTION:
            debug = (int)strlen(debug_prefix); /* SIGSEGV */
            break;
        case HELP_OPTION:
            usage(0);
            break;
        case VERSION_OPTION:
            puts("options 1.0");
            return 0;
        default:
            usage(2);
        }
    }
    if (optind != argc - 1)
        usage(2);
    FILE *f = fopen(argv[optind], "r");
    if (!f)
        return 1;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (!strchr(line, delim)) {
            if (!only_delimited)
                fputs(line, stdout);
            continue;
        }
        char *p = line;
        for (int k = 1; k < field && p; k++)
            p = (p = strchr(p, delim)) ? p + 1 : NULL;
        if (p) {
            size_t n = strcspn(p, (char[]){delim, '\n', 0});
            printf("%.*s%s\n", (int)n, p, debug ? " (debug)" : "");
        }
    }
    fclose(f);
    return 0;
}
