/* Three dense rules compiled: hand-written matchers of dense.py's KEYS and USERINFO patterns
 * and credentials.py's token user names (TOKEN_USERS).
 *
 * keys(text, pos, caseless, trie, word_run) returns exactly what `KEYS.lower.split(text[pos:])`
 * (caseless: `KEYS.caseless.split(...)`) returns: the gaps, and per value the key with its
 * separator and the value; userinfo(text, pos, longest) and token_users(text, pos, prefix,
 * shortest) what the other two patterns' splits return. The patterns stay the definition (and
 * what runs where this module was not built); tests/masking/test_dense_compiled.py checks that
 * each matcher cuts generated texts as its pattern does. Every fact of the rule table a
 * pattern holds is handed in by the caller (densetwin.py): the key words, the run after which
 * a value takes no word, the longest user name, the PAT prefix, the shortest token user.
 *
 * Why C: a huge line of `pwd=a;` holds a value every six characters; sre's cost per match
 * (state reset, search restart, three slices) was half of `hygiene mask`'s time on it. Each
 * step below is one part of a pattern, in the order sre tries it; where sre would backtrack
 * into a part, the comment says why no other choice there can match (so none is tried).
 *
 * The key words come as a trie (densetwin.key_trie): NODE_SIZE bytes per node, node 0 the
 * root: a flags byte (END: a word ends here, MORE: longer words go on), then per letter a..z
 * the child's index (0: none).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NODE_SIZE 27
#define END 1
#define MORE 2
/* A piece this short is compared with the last one of its kind, and shared when equal. */
#define SHARE_LENGTH 64

typedef struct {
    const void *data;
    int kind;
    Py_ssize_t n;
    int caseless;
    const unsigned char *trie;
    Py_ssize_t word_run; /* keys: a value's run this long takes no word after it (`(?<!C{N})`) */
    Py_ssize_t longest;  /* userinfo: the longest user name before a password */
    PyObject *prefix;    /* token_users: the PAT prefix a user name may not hold */
    Py_ssize_t shortest; /* token_users: the shortest user name taken */
} text_t;

static inline Py_UCS4
at(const text_t *t, Py_ssize_t i)
{
    return PyUnicode_READ(t->kind, t->data, i);
}

/* The ASCII letter `c` matches in the pattern: itself over a lowercase text; ignoring case,
 * what `re` matches with IGNORECASE (the test compares this with `re` over every code point). */
static inline Py_UCS4
fold(const text_t *t, Py_UCS4 c)
{
    if (!t->caseless) {
        return c;
    }
    if (c >= 'A' && c <= 'Z') {
        return c + 32;
    }
    switch (c) {
    case 0x130:
    case 0x131:
        return 'i';
    case 0x17f:
        return 's';
    case 0x212a:
        return 'k';
    default:
        return c;
    }
}

static inline int
is_ws(Py_UCS4 c)
{
    return c == ' ' || c == '\t';
}

static inline int
is_quote(Py_UCS4 c)
{
    return c == '"' || c == '\'';
}

/* A character of an unquoted value: [^\s"'\\,;&)\]}|] */
static inline int
is_value_char(Py_UCS4 c)
{
    switch (c) {
    case '"':
    case '\'':
    case '\\':
    case ',':
    case ';':
    case '&':
    case ')':
    case ']':
    case '}':
    case '|':
        return 0;
    default:
        return !Py_UNICODE_ISSPACE(c);
    }
}

static inline int
is_bfru(const text_t *t, Py_UCS4 c)
{
    c = fold(t, c);
    return c == 'b' || c == 'f' || c == 'r' || c == 'u';
}

/* [a-z0-9_.-] (ignoring case over a text that is not lowercase) */
static inline int
is_word_end(const text_t *t, Py_UCS4 c)
{
    c = fold(t, c);
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

static inline Py_ssize_t
skip_ws(const text_t *t, Py_ssize_t p)
{
    while (p < t->n && is_ws(at(t, p))) {
        p++;
    }
    return p;
}

/* Where a quote (\\{0,3}["']) starting at p ends, or -1. Fewer backslashes than the run
 * holds leave a backslash where the quote must be: no other choice matches. */
static Py_ssize_t
quote_end(const text_t *t, Py_ssize_t p)
{
    Py_ssize_t j = 0;
    while (j < 3 && p + j < t->n && at(t, p + j) == '\\') {
        j++;
    }
    if (p + j < t->n && is_quote(at(t, p + j))) {
        return p + j + 1;
    }
    return -1;
}

/* The string prefix ([bfru]{1,2}(?=quote)) at p: its length, 0 for none. */
static Py_ssize_t
prefix_length(const text_t *t, Py_ssize_t p)
{
    if (p >= t->n || !is_bfru(t, at(t, p))) {
        return 0;
    }
    if (p + 1 < t->n && is_bfru(t, at(t, p + 1)) && quote_end(t, p + 2) >= 0) {
        return 2;
    }
    return quote_end(t, p + 1) >= 0 ? 1 : 0;
}

/* The separators that may start at p (=>|[:=]|,[ \t]*b?(?=quote)), in the order sre tries
 * them: where each ends. Returns how many. */
static int
separators(const text_t *t, Py_ssize_t p, Py_ssize_t ends[2])
{
    if (p >= t->n) {
        return 0;
    }
    Py_UCS4 c = at(t, p);
    if (c == '=' && p + 1 < t->n && at(t, p + 1) == '>') {
        ends[0] = p + 2;
        ends[1] = p + 1; /* `=` alone, the value then starting at `>` */
        return 2;
    }
    if (c == ':' || c == '=') {
        ends[0] = p + 1;
        return 1;
    }
    if (c == ',') {
        Py_ssize_t q = skip_ws(t, p + 1);
        if (q < t->n && fold(t, at(t, q)) == 'b' && quote_end(t, q + 1) >= 0) {
            ends[0] = q + 1;
            return 1;
        }
        if (quote_end(t, q) >= 0) {
            ends[0] = q;
            return 1;
        }
    }
    return 0;
}

static inline Py_ssize_t
run_end(const text_t *t, Py_ssize_t p)
{
    while (p < t->n && is_value_char(at(t, p))) {
        p++;
    }
    return p;
}

static inline Py_ssize_t
line_end(const text_t *t, Py_ssize_t p)
{
    while (p < t->n && at(t, p) != '\n') {
        p++;
    }
    return p;
}

/* After an unquoted run ending at e: the short word that may follow it (`Bearer x`), when
 * the run ends like a scheme word and is not itself a credential's length. */
static Py_ssize_t
with_word(const text_t *t, Py_ssize_t e)
{
    if (e >= t->n || !is_ws(at(t, e)) || e == 0 || !is_word_end(t, at(t, e - 1))) {
        return e;
    }
    if (e >= t->word_run) {
        Py_ssize_t i = e - t->word_run;
        while (i < e && is_value_char(at(t, i))) {
            i++;
        }
        if (i == e) {
            return e;
        }
    }
    Py_ssize_t f = skip_ws(t, e);
    if (f < t->n && is_value_char(at(t, f))) {
        return run_end(t, f);
    }
    return e;
}

/* What follows a link's separator: spaces, a string prefix and quote, then a quoted rest of
 * the line (maybe empty) or an unquoted run and its word. -1: no value there. */
static Py_ssize_t
link_tail(const text_t *t, Py_ssize_t s)
{
    Py_ssize_t p = skip_ws(t, s);
    p += prefix_length(t, p);
    Py_ssize_t q = quote_end(t, p);
    if (q >= 0) {
        p = q;
    }
    if (p > 0 && is_quote(at(t, p - 1))) {
        return line_end(t, p);
    }
    if (p < t->n && is_value_char(at(t, p))) {
        return with_word(t, run_end(t, p));
    }
    return -1;
}

/* A link at x (a key at the end of a value with a value of its own after it): where it
 * ends, or -1. A quote taken before the separator is never given back: without it the
 * separator would have to start at that quote. */
static Py_ssize_t
link_at(const text_t *t, Py_ssize_t x)
{
    if (x >= t->n) {
        return -1;
    }
    Py_UCS4 c = at(t, x);
    if (!(c == '\\' || is_quote(c) || is_ws(c) || c == ',')) {
        return -1;
    }
    Py_ssize_t y = x;
    if (c == '\\' || is_quote(c)) {
        Py_ssize_t q = quote_end(t, x);
        if (q >= 0) {
            y = q;
        }
    }
    Py_ssize_t ends[2];
    int count = separators(t, skip_ws(t, y), ends);
    for (int i = 0; i < count; i++) {
        Py_ssize_t e = link_tail(t, ends[i]);
        if (e >= 0) {
            return e;
        }
    }
    if (x > 0 && c != ',') {
        Py_UCS4 before = at(t, x - 1);
        if (before == ':' || before == '=' || before == '>') {
            return link_tail(t, x);
        }
    }
    return -1;
}

/* An unquoted value starting at p (its first character is a value character): its run,
 * its word, and its links. */
static Py_ssize_t
unquoted_end(const text_t *t, Py_ssize_t p)
{
    Py_ssize_t e = with_word(t, run_end(t, p));
    for (;;) {
        Py_ssize_t next = link_at(t, e);
        if (next < 0) {
            return e;
        }
        e = next;
    }
}

/* A value at p: the rest of the line after a quote (one character at least), or an
 * unquoted value. -1: none. */
static Py_ssize_t
value_end(const text_t *t, Py_ssize_t p)
{
    if (p >= t->n) {
        return -1;
    }
    Py_UCS4 c = at(t, p);
    if (p > 0 && is_quote(at(t, p - 1)) && c != '\n') {
        return line_end(t, p);
    }
    if (is_value_char(c)) {
        return unquoted_end(t, p);
    }
    return -1;
}

/* After a separator ending at s: the value's start and end (-1: none). Spaces, a string
 * prefix and an opening quote may stand first; given back one by one they leave a space,
 * a quote or a backslash where the value would start, or a look-behind that is no quote:
 * only the choices tried here can match. */
static Py_ssize_t
value_after(const text_t *t, Py_ssize_t s, Py_ssize_t *start)
{
    if (s < t->n) {
        Py_UCS4 c = at(t, s);
        if (is_ws(c) || c == '\\' || is_quote(c) || is_bfru(t, c)) {
            Py_ssize_t w = skip_ws(t, s);
            Py_ssize_t prefix = prefix_length(t, w);
            Py_ssize_t q = quote_end(t, w + prefix);
            if (q >= 0) {
                Py_ssize_t e = value_end(t, q);
                if (e >= 0) {
                    *start = q;
                    return e;
                }
            }
            Py_ssize_t e = value_end(t, w);
            if (e >= 0) {
                *start = w;
                return e;
            }
            return -1;
        }
    }
    *start = s;
    return value_end(t, s);
}

/* Where the longest key word (letters with [_.-]* between) starting at i ends, or -1. A
 * shorter word is never taken back to: a letter follows it, and no separator starts with
 * one. */
static Py_ssize_t
key_end(const text_t *t, Py_ssize_t i)
{
    const unsigned char *trie = t->trie;
    Py_ssize_t node = 0, p = i, last = -1;
    while (p < t->n) {
        Py_UCS4 c = fold(t, at(t, p));
        if (c < 'a' || c > 'z') {
            break;
        }
        Py_ssize_t child = trie[node * NODE_SIZE + 1 + (c - 'a')];
        if (child == 0) {
            break;
        }
        node = child;
        p++;
        if (trie[node * NODE_SIZE] & END) {
            last = p;
        }
        if (!(trie[node * NODE_SIZE] & MORE)) {
            break;
        }
        while (p < t->n) {
            Py_UCS4 d = at(t, p);
            if (d != '_' && d != '.' && d != '-') {
                break;
            }
            p++;
        }
    }
    return last;
}

/* A match starting at i: the value's start and end, or -1. */
static Py_ssize_t
match_at(const text_t *t, Py_ssize_t i, Py_ssize_t *start)
{
    Py_ssize_t p = key_end(t, i);
    if (p < 0) {
        return -1;
    }
    while (p < t->n) {
        Py_UCS4 d = at(t, p);
        if (d != '_' && d != '.' && d != '-') {
            break;
        }
        p++;
    }
    if (p < t->n && (at(t, p) == '\\' || is_quote(at(t, p)))) {
        Py_ssize_t q = quote_end(t, p);
        if (q >= 0) {
            p = q;
        }
    }
    Py_ssize_t ends[2];
    int count = separators(t, skip_ws(t, p), ends);
    for (int k = 0; k < count; k++) {
        Py_ssize_t e = value_after(t, ends[k], start);
        if (e >= 0) {
            return e;
        }
    }
    return -1;
}

typedef struct {
    PyObject *last;
} share_t;

/* text[a:b], the same object as the last piece of its kind when equal (a huge line
 * repeats its keys). */
static PyObject *
piece(PyObject *text, const text_t *t, Py_ssize_t offset, Py_ssize_t a, Py_ssize_t b,
      share_t *share)
{
    Py_ssize_t length = b - a;
    PyObject *last = share->last;
    if (last != NULL && length <= SHARE_LENGTH && PyUnicode_GET_LENGTH(last) == length &&
        PyUnicode_KIND(last) == t->kind &&
        memcmp(PyUnicode_DATA(last), (const char *)t->data + a * t->kind,
               (size_t)(length * t->kind)) == 0) {
        Py_INCREF(last);
        return last;
    }
    PyObject *made = PyUnicode_Substring(text, offset + a, offset + b);
    if (made == NULL) {
        return NULL;
    }
    if (length <= SHARE_LENGTH && PyUnicode_KIND(made) == t->kind) {
        Py_INCREF(made);
        Py_XSETREF(share->last, made);
    }
    return made;
}

static int
append(PyObject *list, PyObject *item)
{
    if (item == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

/* The start of text[pos:] as the matchers read it; -1 (an exception set) when pos is not
 * in the text. */
static int
text_from(PyObject *text, PyObject *pos_object, Py_ssize_t *pos, text_t *t)
{
    *pos = PyLong_AsSsize_t(pos_object);
    if (*pos == -1 && PyErr_Occurred()) {
        return -1;
    }
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (*pos < 0 || *pos > length) {
        PyErr_SetString(PyExc_ValueError, "a position outside the text");
        return -1;
    }
    t->kind = PyUnicode_KIND(text);
    t->data = (const char *)PyUnicode_DATA(text) + *pos * t->kind;
    t->n = length - *pos;
    t->caseless = 0;
    t->trie = NULL;
    t->word_run = 0;
    t->longest = 0;
    t->prefix = NULL;
    t->shortest = 0;
    return 0;
}

/* A matcher: where the match starting at i ends (-1: none), and where its value starts. */
typedef Py_ssize_t (*match_t)(const text_t *t, Py_ssize_t i, Py_ssize_t *start);

/* What `pattern.split(text[pos:])` returns for the matcher's pattern; `first` tells the
 * characters a match may start with (ASCII; NULL: `:` alone). */
static PyObject *
split_by(PyObject *text, Py_ssize_t pos, const text_t *t, match_t match,
         const unsigned char *first)
{
    PyObject *pieces = PyList_New(0);
    if (pieces == NULL) {
        return NULL;
    }
    share_t gaps = {NULL}, keys = {NULL}, values = {NULL};
    Py_ssize_t last = 0, i = 0;
    while (i < t->n) {
        Py_UCS4 c = fold(t, at(t, i));
        if (first == NULL ? c != ':' : (c < 'a' || c > 'z' || !first[c - 'a'])) {
            i++;
            continue;
        }
        Py_ssize_t start;
        Py_ssize_t end = match(t, i, &start);
        if (end < 0) {
            i++;
            continue;
        }
        if (append(pieces, piece(text, t, pos, last, i, &gaps)) < 0 ||
            append(pieces, piece(text, t, pos, i, start, &keys)) < 0 ||
            append(pieces, piece(text, t, pos, start, end, &values)) < 0) {
            goto failed;
        }
        last = i = end;
    }
    if (append(pieces, piece(text, t, pos, last, t->n, &gaps)) < 0) {
        goto failed;
    }
    Py_XDECREF(gaps.last);
    Py_XDECREF(keys.last);
    Py_XDECREF(values.last);
    return pieces;
failed:
    Py_XDECREF(gaps.last);
    Py_XDECREF(keys.last);
    Py_XDECREF(values.last);
    Py_DECREF(pieces);
    return NULL;
}

static PyObject *
keys(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t pos;
    if (nargs != 5 || !PyUnicode_Check(args[0]) || !PyBytes_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "keys(text: str, pos: int, caseless: bool, trie: bytes, word_run: int)");
        return NULL;
    }
    Py_ssize_t word_run = PyLong_AsSsize_t(args[4]);
    if (word_run == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (word_run < 1) {
        PyErr_SetString(PyExc_ValueError, "keys: a word run below 1");
        return NULL;
    }
    int caseless = PyObject_IsTrue(args[2]);
    if (caseless < 0) {
        return NULL;
    }
    text_t t;
    if (text_from(args[0], args[1], &pos, &t) < 0) {
        return NULL;
    }
    Py_ssize_t trie_size = PyBytes_GET_SIZE(args[3]);
    const unsigned char *trie = (const unsigned char *)PyBytes_AS_STRING(args[3]);
    if (trie_size == 0 || trie_size % NODE_SIZE != 0 || trie_size / NODE_SIZE > 255) {
        PyErr_SetString(PyExc_ValueError, "keys: not a trie");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < trie_size; i++) {
        if (i % NODE_SIZE != 0 && trie[i] >= trie_size / NODE_SIZE) {
            PyErr_SetString(PyExc_ValueError, "keys: a trie child outside the trie");
            return NULL;
        }
    }
    t.caseless = caseless;
    t.trie = trie;
    t.word_run = word_run;
    unsigned char first[26]; /* what the root has a child for */
    for (int c = 0; c < 26; c++) {
        first[c] = trie[1 + c] != 0;
    }
    return split_by(args[0], pos, &t, match_at, first);
}

/* USERINFO: (:)(//user:password@rest). The user and the password are runs of characters
 * their classes take, each ended by the one character that may follow it (`:`, `@`), which
 * neither run takes: a shorter run leaves one of its own characters there, so the greedy
 * run is the only choice. */
static inline int
is_user_char(Py_UCS4 c)
{
    switch (c) {
    case '/':
    case ':':
    case '@':
    case '\'':
    case '"':
    case '<':
    case '>':
        return 0;
    default:
        return !Py_UNICODE_ISSPACE(c);
    }
}

static inline int
is_password_char(Py_UCS4 c)
{
    return c == ':' || is_user_char(c);
}

/* What runs on after the `@`: [^\s"'\\,;&)\]}|:] or a `:` that starts no `//`. */
static inline int
is_rest_char(const text_t *t, Py_ssize_t p)
{
    Py_UCS4 c = at(t, p);
    if (c == ':') {
        return !(p + 2 < t->n && at(t, p + 1) == '/' && at(t, p + 2) == '/');
    }
    return is_value_char(c);
}

static Py_ssize_t
userinfo_at(const text_t *t, Py_ssize_t i, Py_ssize_t *start)
{
    Py_ssize_t p = i + 1;
    if (p + 1 >= t->n || at(t, p) != '/' || at(t, p + 1) != '/') {
        return -1;
    }
    Py_ssize_t user = p + 2, q = user;
    while (q < t->n && q - user < t->longest && is_user_char(at(t, q))) {
        q++;
    }
    if (q >= t->n || at(t, q) != ':') {
        return -1;
    }
    Py_ssize_t password = ++q;
    while (q < t->n && is_password_char(at(t, q))) {
        q++;
    }
    if (q == password || q >= t->n || at(t, q) != '@') {
        return -1;
    }
    q++;
    while (q < t->n && is_rest_char(t, q)) {
        q++;
    }
    *start = p;
    return q;
}

static PyObject *
userinfo(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t pos;
    text_t t;
    if (nargs != 3 || !PyUnicode_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "userinfo(text: str, pos: int, longest: int)");
        return NULL;
    }
    if (text_from(args[0], args[1], &pos, &t) < 0) {
        return NULL;
    }
    t.longest = PyLong_AsSsize_t(args[2]);
    if (t.longest == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (t.longest < 0) {
        PyErr_SetString(PyExc_ValueError, "userinfo: a longest user name below 0");
        return NULL;
    }
    return split_by(args[0], pos, &t, userinfo_at, NULL);
}

/* credentials._TOKEN_USER: (://)(user)(?=@), a user name of token characters, of the length
 * given or more, with a digit or both cases, holding no PAT prefix (given: the core's). Every look-ahead of the pattern reads
 * only the run of token characters after `://` (none of them is in the run's class, or all
 * are), so each is a fact of that run; and the run must end at `@`: a shorter one would
 * leave one of its own characters where the `@` must be. */
static inline int
is_user_token_char(Py_UCS4 c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '~' || c == '+' || c == '=' || c == '-';
}

static Py_ssize_t
token_user_at(const text_t *t, Py_ssize_t i, Py_ssize_t *start)
{
    PyObject *prefix = t->prefix;
    const Py_ssize_t pat_length = PyUnicode_GET_LENGTH(prefix);
    const int pat_kind = PyUnicode_KIND(prefix);
    const void *pat = PyUnicode_DATA(prefix);
    Py_ssize_t p = i + 1;
    if (p + 1 >= t->n || at(t, p) != '/' || at(t, p + 1) != '/') {
        return -1;
    }
    Py_ssize_t run = p + 2, q = run;
    int digit = 0, upper = 0, lower = 0;
    while (q < t->n) {
        Py_UCS4 c = at(t, q);
        if (!is_user_token_char(c)) {
            break;
        }
        digit |= c >= '0' && c <= '9';
        upper |= c >= 'A' && c <= 'Z';
        lower |= c >= 'a' && c <= 'z';
        q++;
    }
    if (q - run < t->shortest || q >= t->n || at(t, q) != '@' || !(digit || (upper && lower))) {
        return -1;
    }
    for (Py_ssize_t k = run; k + pat_length <= q; k++) {
        Py_ssize_t m = 0;
        while (m < pat_length && at(t, k + m) == PyUnicode_READ(pat_kind, pat, m)) {
            m++;
        }
        if (m == pat_length) {
            return -1;
        }
    }
    *start = run;
    return q;
}

static PyObject *
token_users(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    Py_ssize_t pos;
    text_t t;
    if (nargs != 4 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "token_users(text: str, pos: int, prefix: str, length: int)");
        return NULL;
    }
    if (text_from(args[0], args[1], &pos, &t) < 0) {
        return NULL;
    }
    Py_ssize_t length = PyLong_AsSsize_t(args[3]);
    if (length == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (PyUnicode_GET_LENGTH(args[2]) == 0 || length < 1) {
        PyErr_SetString(PyExc_ValueError, "token_users: an empty prefix or a length below 1");
        return NULL;
    }
    t.prefix = args[2];
    t.shortest = length;
    return split_by(args[0], pos, &t, token_user_at, NULL);
}

static PyMethodDef methods[] = {
    {"keys", (PyCFunction)(void (*)(void))keys, METH_FASTCALL,
     "keys(text, pos, caseless, trie, word_run): what dense.KEYS's split of text[pos:] gives."},
    {"userinfo", (PyCFunction)(void (*)(void))userinfo, METH_FASTCALL,
     "userinfo(text, pos, longest): what dense.USERINFO's split of text[pos:] gives."},
    {"token_users", (PyCFunction)(void (*)(void))token_users, METH_FASTCALL,
     "token_users(text, pos, prefix, length): what credentials._TOKEN_USER's split gives."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "hygiene.masking._dense", NULL, 0, methods,
};

PyMODINIT_FUNC
PyInit__dense(void)
{
    return PyModule_Create(&module_def);
}
