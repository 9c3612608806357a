/* interp: runs a script of commands on a small table of integer variables
 * and a stack, one command a line.
 * Usage: interp [FILE]   (standard input without FILE)
 *
 *   set NAME N        NAME = N              get NAME     print NAME
 *   add NAME N        NAME += N             div NAME N   NAME /= N
 *   del NAME          forget NAME           bar NAME     NAME as a bar of '#'
 *   show NAME FMT     print NAME in FMT: dec, hex or oct
 *   push N [COUNT]    push N (COUNT times)  pop [NAME]   pop (into NAME)
 *   poke I N          set the I-th stack entry from the top to N
 *   print             every variable, then the stack
 *
 * Blank lines and lines starting with '#' are skipped; a bad command or
 * argument is reported on stderr and the script goes on.
 *
 * Planted bugs:
 *  - div: dividing -2147483648 by -1 overflows (SIGFPE); only a zero
 *    divisor is refused. Input: "set x -2147483648\ndiv x -1\n".
 *  - show: the format "bin" is listed without a printer, which is then
 *    called through a NULL pointer (SIGSEGV). Input: "set x 5\nshow x bin\n".
 *  - push: the room check "depth + count > STACK_MAX" wraps around for a
 *    count close to 2^32, and push_one's assertion fails (SIGABRT).
 *    Input: "push 1\npush 7 4294967295\n" (or "push 7 -1" after "push 1").
 *  - poke: only indexes past the top are refused, so a large negative
 *    index writes far outside the stack (SIGSEGV).
 *    Input: "poke -1000000000 5\n".
 * draw_bar would overflow its buffer on a width outside 0..40, but its
 * only caller clamps the width to that range first: no script reaches it.
 *
 * Exit status: 0 at the end of the script, 1 when FILE cannot be read. */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS 16
#define STACK_MAX 16
#define BAR_MAX 40

struct var {
    char name[32];
    int value;
    int used;
};

static struct var vars[MAX_VARS];
static int stack[STACK_MAX];
static unsigned depth;
static int lineno;

static void error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "interp: line %d: ", lineno);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX) {
        error("not a number: %s", s);
        return 0;
    }
    *out = (int)v;
    return 1;
}

static struct var *find(const char *name)
{
    for (int i = 0; i < MAX_VARS; i++)
        if (vars[i].used && strcmp(vars[i].name, name) == 0)
            return &vars[i];
    return NULL;
}

static struct var *find_existing(const char *name)
{
    struct var *v = find(name);
    if (!v)
        error("no variable %s", name);
    return v;
}

static struct var *create(const char *name)
{
    struct var *v = find(name);
    if (v)
        return v;
    for (int i = 0; i < MAX_VARS; i++) {
        if (!vars[i].used) {
            snprintf(vars[i].name, sizeof vars[i].name, "%s", name);
            vars[i].used = 1;
            vars[i].value = 0;
            return &vars[i];
        }
    }
    error("too many variables");
    return NULL;
}

static void cmd_set(const char *name, const char *arg)
{
    int n;
    struct var *v;
    if (parse_int(arg, &n) && (v = create(name)))
        v->value = n;
}

static void cmd_get(const char *name)
{
    struct var *v = find_existing(name);
    if (v)
        printf("%s = %d\n", v->name, v->value);
}

static void cmd_add(const char *name, const char *arg)
{
    int n;
    struct var *v = find_existing(name);
    if (!v || !parse_int(arg, &n))
        return;
    long sum = (long)v->value + n;
    if (sum < INT_MIN || sum > INT_MAX) {
        error("%s + %d overflows", name, n);
        return;
    }
    v->value = (int)sum;
}

static void cmd_div(const char *name, const char *arg)
{
    int n;
    struct var *v = find_existing(name);
    if (!v || !parse_int(arg, &n))
        return;
    if (n == 0) {
        error("division by zero");
        return;
    }
    v->value /= n;
}

static void cmd_del(const char *name)
{
    struct var *v = find_existing(name);
    if (v)
        memset(v, 0, sizeof *v);
}

static void print_dec(const char *name, int value)
{
    printf("%s = %d\n", name, value);
}

static void print_hex(const char *name, int value)
{
    printf("%s = 0x%x\n", name, (unsigned)value);
}

static void print_oct(const char *name, int value)
{
    printf("%s = 0%o\n", name, (unsigned)value);
}

static const struct format {
    const char *name;
    void (*print)(const char *, int);
} formats[] = {
    {"dec", print_dec},
    {"hex", print_hex},
    {"oct", print_oct},
    {"bin", NULL},
};

static void cmd_show(const char *name, const char *fmt)
{
    struct var *v = find_existing(name);
    if (!v)
        return;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (strcmp(formats[i].name, fmt) == 0) {
            formats[i].print(v->name, v->value);
            return;
        }
    }
    error("unknown format %s", fmt);
}

static void draw_bar(const char *name, int width)
{
    char bar[BAR_MAX + 1];
    memset(bar, '#', (size_t)width);
    bar[width] = '\0';
    printf("%-8s|%s\n", name, bar);
}

static void cmd_bar(const char *name)
{
    struct var *v = find_existing(name);
    if (!v)
        return;
    int width = v->value;
    if (width < 0)
        width = 0;
    if (width > BAR_MAX)
        width = BAR_MAX;
    draw_bar(v->name, width);
}

static void push_one(int value)
{
    assert(depth < STACK_MAX);
    stack[depth++] = value;
}

static void cmd_push(const char *arg, const char *count_arg)
{
    int value;
    unsigned count = 1;
    if (!parse_int(arg, &value))
        return;
    if (count_arg) {
        char *end;
        count = (unsigned)strtoul(count_arg, &end, 10);
        if (end == count_arg || *end != '\0') {
            error("bad count: %s", count_arg);
            return;
        }
    }
    if (depth + count > STACK_MAX) {
        error("stack full");
        return;
    }
    for (unsigned i = 0; i < count; i++)
        push_one(value);
}

static void cmd_pop(const char *name)
{
    if (depth == 0) {
        error("stack empty");
        return;
    }
    int value = stack[--depth];
    struct var *v;
    if (!name)
        printf("%d\n", value);
    else if ((v = create(name)))
        v->value = value;
}

static void cmd_poke(const char *index_arg, const char *arg)
{
    int index, value;
    if (!parse_int(index_arg, &index) || !parse_int(arg, &value))
        return;
    if (index >= (int)depth) {
        error("no entry %d", index);
        return;
    }
    stack[(long)depth - 1 - index] = value;
}

static void cmd_print(void)
{
    for (int i = 0; i < MAX_VARS; i++)
        if (vars[i].used)
            printf("%s = %d\n", vars[i].name, vars[i].value);
    printf("stack:");
    for (unsigned i = 0; i < depth; i++)
        printf(" %d", stack[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char line[256], cmd[16], a[32], b[32];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        int n = sscanf(line, "%15s %31s %31s", cmd, a, b);
        if (n < 1 || cmd[0] == '#')
            continue;
        if (strcmp(cmd, "set") == 0 && n == 3)
            cmd_set(a, b);
        else if (strcmp(cmd, "get") == 0 && n == 2)
            cmd_get(a);
        else if (strcmp(cmd, "add") == 0 && n == 3)
            cmd_add(a, b);
        else if (strcmp(cmd, "div") == 0 && n == 3)
            cmd_div(a, b);
        else if (strcmp(cmd, "del") == 0 && n == 2)
            cmd_del(a);
        else if (strcmp(cmd, "show") == 0 && n == 3)
            cmd_show(a, b);
        else if (strcmp(cmd, "bar") == 0 && n == 2)
            cmd_bar(a);
        else if (strcmp(cmd, "push") == 0 && n >= 2)
            cmd_push(a, n == 3 ? b : NULL);
        else if (strcmp(cmd, "pop") == 0 && n <= 2)
            cmd_pop(n == 2 ? a : NULL);
        else if (strcmp(cmd, "poke") == 0 && n == 3)
            cmd_poke(a, b);
        else if (strcmp(cmd, "print") == 0 && n == 1)
            cmd_print();
        else
            error("bad command: %s", cmd);
    }
    if (f != stdin)
        fclose(f);
    return 0;
}
