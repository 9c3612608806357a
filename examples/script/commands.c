/* The interpreter of `script` (see script.c). */
#include "commands.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handlers of the reserved commands, filled by later versions (visible
 * to them, so still empty here). */
void (*script_reserved[4])(char *line);
/* The hold space of `x`, which nothing fills yet (visible, as above). */
char *script_hold;

int compile(const char *text, struct program *prog) {
    prog->n = 0;
    for (const char *s = text; *s; s++) {
        switch (*s) {
        case 'p':
        case 'u':
        case 'r':
        case 'd':
        case 'x':
            if (prog->n == MAX_COMMANDS)
                return -1;
            prog->ops[prog->n++] = *s;
            break;
        case ';':
        case ' ':
            break;
        default:
            /* A doubled capital (`ZZ`, `QQ`...) is a reserved command. */
            if (isupper((unsigned char)s[0]) && s[1] == s[0])
                script_reserved[s[0] % 4](NULL); /* SIGSEGV: never filled */
            break;
        }
    }
    return 0;
}

void run(const struct program *prog, char *line, int quiet) {
    for (int k = 0; k < prog->n; k++) {
        switch (prog->ops[k]) {
        case 'p':
            puts(line);
            break;
        case 'u':
            for (char *c = line; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            break;
        case 'r':
            for (size_t i = 0, j = strlen(line); i + 1 < j; i++, j--) {
                char t = line[i];
                line[i] = line[j - 1];
                line[j - 1] = t;
            }
            break;
        case 'd':
            return;
        case 'x':
            /* SIGABRT: the hold space was never filled. */
            if (!script_hold)
                abort();
            line[0] = script_hold[0];
            break;
        }
    }
    if (!quiet)
        puts(line);
}
