/* pattern: reads a regular expression from the first line of its input
 * file, compiles it with libc's regcomp and, when libc accepts it, looks
 * at it with a parser of its own. One bug needs a valid pattern that
 * starts with the bracket expression "[q]": a solver that did not know
 * what regcomp accepts would solve for "[bcd", which regcomp rejects.
 * The other needs one that starts with a character class, such as
 * "[[:alpha:]]": regcomp rejects a class whose name it does not know.
 *   pattern FILE
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_pattern(const char *pat) {
    regex_t re;
    if (regcomp(&re, pat, REG_NOSUB) != 0) {
        puts("invalid pattern");
        return 1;
    }
    regfree(&re);
    if (pat[0] == '[') {
        if (pat[2] == ']' && pat[1] == 'q')
            *(volatile int *)0 = 1; /* the first bug */
        if (pat[1] == '[' && pat[2] == ':')
            abort(); /* the second */
        puts("a bracket expression first");
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pattern FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    char line[64];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 1;
    }
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    return check_pattern(line);
}
