/* subst: applies one substitution `s/FROM/TO/FLAGS` (plain text, not a
 * regex) to every line of FILE, and prints the lines.
 * Usage: subst SCRIPT FILE
 * FROM and TO are not empty. FLAGS: `g` replaces every occurrence (else
 * the first), `p` prints a changed line twice, `I` matches FROM ignoring
 * case.
 * The script is read as sed reads its own: through a cursor that stops
 * at an end pointer set from the script's length, so no compare of a
 * byte ever meets its NUL; only the pointer compare knows where the
 * script ends.
 *  - `g` and `I` together abort (SIGABRT: not implemented). The only
 *    seed has `s/a/b/g`, as short as a script with a flag can be: the
 *    script has to grow by one byte, past where any run read it, and
 *    that byte become `I`.
 * Expected: exit 0 on every input but those (SIGABRT); exit 1 when FILE
 * cannot be read, exit 2 on a bad script or usage. */
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    const char *cur, *end;
} prog;

static int inchar(void) { return prog.cur < prog.end ? (unsigned char)*prog.cur++ : EOF; }

/* Reads up to the delimiter `d` into `out` (at most `n` - 1 bytes). */
static int part(int d, char *out, size_t n) {
    size_t k = 0;
    for (int c = inchar(); c != d; c = inchar()) {
        if (c == EOF || k + 1 == n)
            return -1;
        out[k++] = (char)c;
    }
    out[k] = 0;
    return 0;
}

/* Where `from` occurs in `s`, ignoring case when `icase`. */
static char *find(char *s, const char *from, int icase) {
    size_t n = strlen(from);
    for (; *s; s++)
        if (icase ? strncasecmp(s, from, n) == 0 : strncmp(s, from, n) == 0)
            return s;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fputs("Usage: subst SCRIPT FILE\n", stderr);
        return 2;
    }
    prog.cur = argv[1];
    prog.end = prog.cur + strlen(argv[1]);
    char from[64], to[64];
    int global = 0, print = 0, icase = 0, c;
    if (inchar() != 's' || (c = inchar()) == EOF || part(c, from, sizeof from) || part(c, to, sizeof to) ||
        !from[0] || !to[0])
        goto bad;
    while ((c = inchar()) != EOF) {
        switch (c) {
        case 'g':
            global = 1;
            break;
        case 'p':
            print = 1;
            break;
        case 'I':
            icase = 1;
            break;
        default:
            goto bad;
        }
    }
    if (global && icase)
        abort();
    FILE *f = fopen(argv[2], "r");
    if (!f)
        return 1;
    char line[256], out[1024];
    while (fgets(line, sizeof line, f)) {
        size_t len = 0;
        int changed = 0;
        char *s = line, *at;
        while ((at = find(s, from, icase)) && len + (size_t)(at - s) + strlen(to) < sizeof out) {
            memcpy(out + len, s, (size_t)(at - s));
            len += (size_t)(at - s);
            memcpy(out + len, to, strlen(to));
            len += strlen(to);
            s = at + strlen(from);
            changed = 1;
            if (!global)
                break;
        }
        snprintf(out + len, sizeof out - len, "%s", s);
        fputs(out, stdout);
        if (changed && print)
            fputs(out, stdout);
    }
    fclose(f);
    return 0;
bad:
    fprintf(stderr, "subst: bad script: %s\n", argv[1]);
    return 2;
}
