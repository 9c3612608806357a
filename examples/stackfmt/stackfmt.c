/* stackfmt: fills in a text template. FILE holds variable definitions,
 * "name=value" one a line, then a line "%%" and the template. Each line
 * of the template is printed with its fields filled in:
 *   ${name}      the value of name
 *   ${name:W}    the value right-aligned in W columns (W up to 72)
 *   ${name:-W}   the value left-aligned in W columns
 *   $$           a single '$'
 * Output lines are cut at 72 columns; a cut line, an unknown variable or
 * a bad definition is reported on stderr. Lines before "%%" that start
 * with '#' are comments.
 * Usage: stackfmt FILE
 *
 * Planted bug: render() has expand() fill in each line in its 72-byte
 * stack buffer. Plain characters keep a byte free for the terminating NUL,
 * but the room check for a field is "n + size > LINE_WIDTH", so a field
 * that ends exactly at column 72 lets expand() write the NUL one byte
 * past the buffer (ASan: stack-buffer-overflow, WRITE of size 1; a plain
 * build prints the line and goes on). Only that one length does it: 71
 * fits, 73 is cut.
 * Input:
 *   x=1
 *   %%
 *   ${x:72}
 * (or "name=carve\n%%\nHello, ${name:65}\n": 7 + 65 = 72 columns).
 *
 * Exit status: 0 when every definition and field was good, 1 otherwise
 * or when FILE cannot be read. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_WIDTH 72
#define MAX_VARS 32
#define NAME_MAX_LEN 15
#define VALUE_MAX_LEN 127

struct var {
    char name[NAME_MAX_LEN + 1];
    char value[VALUE_MAX_LEN + 1];
};

static struct var vars[MAX_VARS];
static int nvars, lineno, errors;

static void warn(const char *msg, const char *what)
{
    fprintf(stderr, "stackfmt: line %d: %s%s%s\n", lineno, msg, what ? ": " : "", what ? what : "");
    errors++;
}

static int valid_name(const char *s, size_t len)
{
    if (len == 0 || len > NAME_MAX_LEN || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    return 1;
}

static const char *lookup(const char *name)
{
    for (int i = 0; i < nvars; i++)
        if (strcmp(vars[i].name, name) == 0)
            return vars[i].value;
    return NULL;
}

static void define(const char *line)
{
    const char *eq = strchr(line, '=');
    if (!eq || !valid_name(line, (size_t)(eq - line))) {
        warn("bad definition", line);
        return;
    }
    if (strlen(eq + 1) > VALUE_MAX_LEN) {
        warn("value too long", NULL);
        return;
    }
    char name[NAME_MAX_LEN + 1];
    memcpy(name, line, (size_t)(eq - line));
    name[eq - line] = '\0';
    struct var *v = NULL;
    for (int i = 0; i < nvars; i++)
        if (strcmp(vars[i].name, name) == 0)
            v = &vars[i];
    if (!v) {
        if (nvars == MAX_VARS) {
            warn("too many variables", NULL);
            return;
        }
        v = &vars[nvars++];
        strcpy(v->name, name);
    }
    strcpy(v->value, eq + 1);
}

/* Parses the field at p ("${name}" or "${name:W}"); returns the character
 * after it, or NULL when p does not start a good field. */
static const char *parse_field(const char *p, char *name, long *width)
{
    const char *close = strchr(p + 2, '}');
    if (!close)
        return NULL;
    const char *colon = memchr(p + 2, ':', (size_t)(close - p - 2));
    const char *end = colon ? colon : close;
    if (!valid_name(p + 2, (size_t)(end - p - 2)))
        return NULL;
    memcpy(name, p + 2, (size_t)(end - p - 2));
    name[end - p - 2] = '\0';
    *width = 0;
    if (colon) {
        char *stop;
        errno = 0;
        *width = strtol(colon + 1, &stop, 10);
        if (stop == colon + 1 || stop != close || errno || *width < -LINE_WIDTH || *width > LINE_WIDTH)
            return NULL;
    }
    return close + 1;
}

/* Fills in tmpl into out, which has room for LINE_WIDTH bytes; returns 1
 * when the line had to be cut. */
static int expand(const char *tmpl, char *out)
{
    size_t n = 0;
    int cut = 0;
    const char *p = tmpl;
    while (*p && !cut) {
        char name[NAME_MAX_LEN + 1];
        long width;
        const char *next;
        if (p[0] == '$' && p[1] == '$') {
            p++;
        } else if (p[0] == '$' && p[1] == '{' && (next = parse_field(p, name, &width))) {
            const char *value = lookup(name);
            if (!value) {
                warn("unknown variable", name);
                value = "";
            }
            size_t len = strlen(value), w = (size_t)labs(width);
            size_t size = len > w ? len : w;
            if (n + size > LINE_WIDTH) {
                cut = 1;
                break;
            }
            if (width > 0)
                for (; len < w; w--)
                    out[n++] = ' ';
            memcpy(out + n, value, len);
            n += len;
            if (width < 0)
                for (; len < w; len++)
                    out[n++] = ' ';
            p = next;
            continue;
        }
        if (n + 1 >= LINE_WIDTH)
            cut = 1;
        else
            out[n++] = *p++;
    }
    out[n] = '\0';
    return cut;
}

static void render(const char *tmpl)
{
    char out[LINE_WIDTH];
    int cut = expand(tmpl, out);
    puts(out);
    if (cut)
        warn("line cut", NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: stackfmt FILE\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[256];
    int in_template = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (in_template)
            render(line);
        else if (strcmp(line, "%%") == 0)
            in_template = 1;
        else if (line[0] != '\0' && line[0] != '#')
            define(line);
    }
    fclose(f);
    if (!in_template) {
        fprintf(stderr, "stackfmt: %s: no template (no \"%%%%\" line)\n", argv[1]);
        return 1;
    }
    return errors != 0;
}
