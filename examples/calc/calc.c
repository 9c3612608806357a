/* calc: a reverse-Polish calculator reading its program from stdin.
 * Commands: integers push; + - * / % arithmetic; d duplicate; s swap;
 * p print top; q quit. Expected: exit 0 normally; exit 1 on stack
 * underflow, division by zero or an unknown command. No known crash. */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>

#define DEPTH 32
static long stack[DEPTH];
static int sp;

static int push(long v) { if (sp == DEPTH) return -1; stack[sp++] = v; return 0; }
static int pop(long *v) { if (sp == 0) return -1; *v = stack[--sp]; return 0; }

static int binop(int op) {
    long a, b;
    if (pop(&b) || pop(&a)) { fprintf(stderr, "stack empty\n"); return -1; }
    switch (op) {
    case '+': return push(a + b);
    case '-': return push(a - b);
    case '*': return push(a * b);
    case '/': if (b == 0) { fprintf(stderr, "divide by zero\n"); return -1; } return push(a / b);
    case '%': if (b == 0) { fprintf(stderr, "remainder by zero\n"); return -1; } return push(a % b);
    }
    return -1;
}

int main(void) {
    int c;
    while ((c = getchar()) != EOF) {
        if (isspace(c)) continue;
        if (isdigit(c)) {
            long v = c - '0';
            while ((c = getchar()) != EOF && isdigit(c)) v = v * 10 + (c - '0');
            if (push(v)) { fprintf(stderr, "stack full\n"); return 1; }
            if (c == EOF) break;
            ungetc(c, stdin);
            continue;
        }
        long a, b;
        switch (c) {
        case '+': case '-': case '*': case '/': case '%':
            if (binop(c)) return 1;
            break;
        case 'd': if (pop(&a) || push(a) || push(a)) return 1; break;
        case 's': if (pop(&a) || pop(&b) || push(a) || push(b)) return 1; break;
        case 'p': if (sp == 0) return 1; printf("%ld\n", stack[sp - 1]); break;
        case 'q': return 0;
        default: fprintf(stderr, "unknown command '%c'\n", c); return 1;
        }
    }
    return 0;
}
