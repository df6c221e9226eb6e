/* The filter's common case, compiled: see fastpath.py, whose pure-Python twin gives the same
 * answers wherever this module was not built.
 *
 * Why C: on CPython 3.11 a Python filter that reads `record.__dict__` to look for `extra=`
 * attributes turns the record's inline attribute values into a dict, and every later
 * attribute access of the formatter then takes the slow path (0.28 us a call on the bench
 * machine); rendering the message, lowercasing it and nine substring searches cost another
 * 0.3 us. Here the attributes are counted through the record's GC traverse (which reads the
 * inline values where they are, building nothing), and the message is judged in one pass.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Set once by configure(); read on every logging call. */
static PyObject *record_type = NULL;    /* logging.LogRecord */
static Py_ssize_t inline_referents = -1; /* what a plain record's traverse visits; -1: unused */
static Py_ssize_t standard_count = -1;   /* len(plain_record.__dict__) */
static Py_ssize_t long_length = 0;       /* from this length on, Python's gate decides */

static PyObject *slow = NULL;            /* records.redact_judged: all but the common case */

static PyObject *s_msg, *s_args, *s_exc_info, *s_stack_info, *s_exc_text, *s_dict;
static PyObject *s_message, *s_asctime;

static int
count_referent(PyObject *obj, void *arg)
{
    (void)obj;
    ++*(Py_ssize_t *)arg;
    return 0;
}

/* How many objects `obj`'s GC traverse visits (what gc.get_referents lists), or -1. */
static Py_ssize_t
count_referents(PyObject *obj)
{
    traverseproc traverse = Py_TYPE(obj)->tp_traverse;
    Py_ssize_t count = 0;
    if (!PyObject_IS_GC(obj) || traverse == NULL) {
        return -1;
    }
    if (traverse(obj, count_referent, &count) != 0) {
        return -1;
    }
    return count;
}

static inline unsigned char
lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* Whether `word` (lowercase, its first letter already matched) starts at `p`, in any case. */
static inline int
starts(const unsigned char *p, Py_ssize_t left, const char *word, Py_ssize_t length)
{
    if (left < length) {
        return 0;
    }
    for (Py_ssize_t j = 1; j < length; j++) {
        if (lower(p[j]) != (unsigned char)word[j]) {
            return 0;
        }
    }
    return 1;
}

/* The scanner's base64 needles (hygiene.scan.decoders.b64: base64 of `pat_AIC_`, plain and
 * UTF-16, and base64 of those; a test checks this list against them). Each holds a `Q`, `U` or
 * `Y` (decoded.GATE_CHARS): only a message holding one of those is searched for them. */
static const char *const b64_needles[] = {
    "cGF0X0FJQ1", "BhdF9BSUNf", "wYXRfQUlDX", "cABhAHQAXwBBAEkAQwBfA", "AAYQB0AF8AQQBJAEMAXw",
    "wAGEAdABfAEEASQBDAF8A", "Y0dGMFgwRkpRM", "NHRjBYMEZKUT", "jR0YwWDBGSlEx", "QmhkRjlCU1VOZ",
    "JoZEY5QlNVTm", "CaGRGOUJTVU5m", "d1lYUmZRVWxEW", "dZWFJmUVVsRF", "3WVhSZlFVbERY",
    "Y0FCaEFIUUFYd0JCQUVrQVF3QmZB", "NBQmhBSFFBWHdCQkFFa0FRd0JmQ",
    "jQUJoQUhRQVh3QkJBRWtBUXdCZk", "QUFZUUIwQUY4QVFRQkpBRU1BWH", "FBWVFCMEFGOEFRUUJKQUVNQVh3",
    "BQVlRQjBBRjhBUVFCSkFFTUFYd", "d0FHRUFkQUJmQUVFQVNRQkRBRjhB",
    "dBR0VBZEFCZkFFRUFTUUJEQUY4Q", "3QUdFQWRBQmZBRUVBU1FCREFGOE", NULL,
};

/* Whether one of b64_needles is in `s` (short messages: a plain search per needle). */
static int
has_b64_needle(const unsigned char *s, Py_ssize_t n)
{
    for (const char *const *needle = b64_needles; *needle != NULL; needle++) {
        Py_ssize_t m = (Py_ssize_t)strlen(*needle);
        for (Py_ssize_t i = 0; i + m <= n; i++) {
            if (s[i] == (unsigned char)(*needle)[0] && memcmp(s + i, *needle, (size_t)m) == 0) {
                return 1;
            }
        }
    }
    return 0;
}

/* The hints of fastpath.HINTS (text.py's gate: KEY_HINTS and the scheme words in any case,
 * `AIC` in capitals, `@`, ESC, NUL) and the base64 needles, in one pass over an ASCII text. */
static int
has_hint(const unsigned char *s, Py_ssize_t n)
{
    int needles_looked_for = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        const unsigned char *p = s + i;
        Py_ssize_t left = n - i;
        switch (*p) {
        case 'A':
            if (left >= 3 && p[1] == 'I' && p[2] == 'C') {
                return 1;
            }
            if (starts(p, left, "authoriz", 8)) {
                return 1;
            }
            break;
        case 'a':
            if (starts(p, left, "authoriz", 8)) {
                return 1;
            }
            break;
        case 'K': case 'k':
            if (starts(p, left, "key", 3)) {
                return 1;
            }
            break;
        case 'T': case 't':
            if (starts(p, left, "token", 5)) {
                return 1;
            }
            break;
        case 'C': case 'c':
            if (starts(p, left, "cookie", 6) || starts(p, left, "credential", 10)) {
                return 1;
            }
            break;
        case 'P': case 'p':
            if (starts(p, left, "pass", 4) || starts(p, left, "pwd", 3)) {
                return 1;
            }
            break;
        case 'S': case 's':
            if (starts(p, left, "sessi", 5) || starts(p, left, "secret", 6)) {
                return 1;
            }
            break;
        case 'B': case 'b':
            if (starts(p, left, "bearer", 6) || starts(p, left, "basic", 5)) {
                return 1;
            }
            break;
        case '@': case 0x1b:
        case 0:  /* UTF-16 text interleaves NULs: Python's gate looks for its PATs */
            return 1;
        case 'Q': case 'U': case 'Y':
            if (!needles_looked_for) {
                needles_looked_for = 1;
                if (has_b64_needle(s, n)) {
                    return 1;
                }
            }
            break;
        default:
            break;
        }
    }
    return 0;
}

/* 1: `record.<name>` is None; 0: it is something else; -1: reading it raised. */
static int
is_none(PyObject *record, PyObject *name)
{
    PyObject *value = PyObject_GetAttr(record, name);
    if (value == NULL) {
        return -1;
    }
    int none = value == Py_None;
    Py_DECREF(value);
    return none;
}

/* How many attributes `record.__dict__` holds, less those a formatter adds (`message`,
 * `asctime`) when `formatted`: memo.attribute_count's count with formatted; -1: raised. */
static Py_ssize_t
dict_attribute_count(PyObject *record, int formatted)
{
    PyObject *attributes = PyObject_GetAttr(record, s_dict);
    if (attributes == NULL) {
        return -1;
    }
    Py_ssize_t size = PyObject_Size(attributes);
    if (size >= 0 && formatted) {
        int message = PySequence_Contains(attributes, s_message);
        int asctime = message < 0 ? -1 : PySequence_Contains(attributes, s_asctime);
        size = asctime < 0 ? -1 : size - message - asctime;
    }
    Py_DECREF(attributes);
    return size;
}

/* 1: the record holds exactly the attributes LogRecord gives; 0: more or fewer; -1: raised. */
static int
only_standard_attributes(PyObject *record)
{
    if (inline_referents >= 0 && Py_TYPE(record) == (PyTypeObject *)record_type
        && count_referents(record) == inline_referents) {
        return 1;
    }
    Py_ssize_t count = dict_attribute_count(record, 0);
    return count < 0 ? -1 : count == standard_count;
}

/* The message of a plain record, or None when the record is not one (see fastpath.py). */
static PyObject *
plain_message_of(PyObject *record, int plain)
{
    PyObject *result = NULL, *msg = NULL, *rargs = NULL, *message = NULL;
    msg = PyObject_GetAttr(record, s_msg);
    if (msg == NULL) {
        goto done;
    }
    rargs = PyObject_GetAttr(record, s_args);
    if (rargs == NULL) {
        goto done;
    }
    if (!PyTuple_CheckExact(rargs) || !PyUnicode_CheckExact(msg)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *const names[] = {s_exc_info, s_stack_info, s_exc_text};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int none = is_none(record, names[i]);
        if (none < 0) {
            goto done;
        }
        if (!none) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    if (!plain) {
        int standard = only_standard_attributes(record);
        if (standard < 0) {
            goto done;
        }
        if (!standard) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    message = PyTuple_GET_SIZE(rargs) ? PyUnicode_Format(msg, rargs) : Py_NewRef(msg);
    if (message == NULL) {
        goto done;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(message) < 0) {
        goto done;
    }
#endif
    Py_ssize_t length = PyUnicode_GET_LENGTH(message);
    if (length < long_length && PyUnicode_IS_ASCII(message)
        && !has_hint(PyUnicode_1BYTE_DATA(message), length)) {
        result = PyTuple_Pack(3, record, rargs, msg);
    }
    else {
        result = Py_NewRef(message);
    }
done:
    Py_XDECREF(msg);
    Py_XDECREF(rargs);
    Py_XDECREF(message);
    return result;
}

static PyObject *
plain_message(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "plain_message(record, plain)");
        return NULL;
    }
    if (record_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "plain_message: configure() was not called");
        return NULL;
    }
    int plain = PyObject_IsTrue(args[1]);
    if (plain < 0) {
        return NULL;
    }
    return plain_message_of(args[0], plain);
}

/* The last record found clean, with the arguments and template it was judged on (strong
 * references, or NULL): the filter on a second handler, or after install()'s hook, knows it. */
static PyObject *last_record = NULL, *last_args = NULL, *last_msg = NULL;

static void
set_last(PyObject *record, PyObject *args, PyObject *msg)
{
    /* The new ones first: releasing the old ones may run a finalizer, and another thread. */
    PyObject *old_record = last_record, *old_args = last_args, *old_msg = last_msg;
    last_record = Py_XNewRef(record);
    last_args = Py_XNewRef(args);
    last_msg = Py_XNewRef(msg);
    Py_XDECREF(old_record);
    Py_XDECREF(old_args);
    Py_XDECREF(old_msg);
}

/* 1: `record` is the one remembered, with the same arguments and template; 0: not; -1. */
static int
is_remembered(PyObject *record)
{
    if (record != last_record || last_record == NULL) {
        return 0;
    }
    PyObject *args = PyObject_GetAttr(record, s_args);
    if (args == NULL) {
        return -1;
    }
    PyObject *msg = PyObject_GetAttr(record, s_msg);
    int same = msg != NULL && args == last_args && msg == last_msg;
    Py_DECREF(args);
    if (msg == NULL) {
        return -1;
    }
    Py_DECREF(msg);
    return same;
}

/* 1: `record` holds LogRecord's attributes and what a formatter adds, no more; 0; -1. */
static int
no_attribute_added(PyObject *record)
{
    Py_ssize_t count = dict_attribute_count(record, 1);
    return count < 0 ? -1 : count == standard_count;
}

/* The filter: True for a record remembered or judged clean here; any other goes to Python's
 * slow(record, verdict), verdict being the rendered message, None (not a plain record) or
 * False (reading or rendering it raised). */
static PyObject *
redact(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    (void)module;
    /* redact(record, plain=False), either by keyword as well (Filter.filter's `record`). */
    PyObject *record = nargs > 0 ? args[0] : NULL, *plain_arg = nargs > 1 ? args[1] : NULL;
    Py_ssize_t keywords = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < keywords; i++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, i);
        PyObject **slot = NULL;
        if (PyUnicode_CompareWithASCIIString(name, "record") == 0) {
            slot = &record;
        }
        else if (PyUnicode_CompareWithASCIIString(name, "plain") == 0) {
            slot = &plain_arg;
        }
        if (slot == NULL || *slot != NULL) {
            PyErr_SetString(PyExc_TypeError, "redact(record, plain=False)");
            return NULL;
        }
        *slot = args[nargs + i];
    }
    if (record == NULL || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "redact(record, plain=False)");
        return NULL;
    }
    if (slow == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "redact: configure() was not called");
        return NULL;
    }
    int plain = plain_arg == NULL ? 0 : PyObject_IsTrue(plain_arg);
    if (plain < 0) {
        return NULL;
    }
    PyObject *verdict = NULL;
    int remembered = is_remembered(record);
    if (remembered > 0) {
        remembered = no_attribute_added(record);
    }
    if (remembered > 0) {
        Py_RETURN_TRUE;
    }
    if (remembered == 0) {
        verdict = plain_message_of(record, plain);
    }
    if (verdict != NULL && PyTuple_CheckExact(verdict)) {
        set_last(PyTuple_GET_ITEM(verdict, 0), PyTuple_GET_ITEM(verdict, 1),
                 PyTuple_GET_ITEM(verdict, 2));
        Py_DECREF(verdict);
        Py_RETURN_TRUE;
    }
    if (verdict == NULL) {
        PyErr_Clear(); /* Python masks it the safe way */
        verdict = Py_NewRef(Py_False);
    }
    PyObject *result = PyObject_CallFunctionObjArgs(slow, record, verdict, NULL);
    Py_DECREF(verdict);
    return result;
}

static PyObject *
remembered(PyObject *module, PyObject *record)
{
    (void)module;
    int found = is_remembered(record);
    if (found < 0) {
        return NULL;
    }
    return PyBool_FromLong(found);
}

static PyObject *
remember(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "remember(record, args, msg)");
        return NULL;
    }
    set_last(args[0], args[1], args[2]);
    Py_RETURN_NONE;
}

static PyObject *
forget(PyObject *module, PyObject *record)
{
    (void)module;
    if (record == last_record) {
        set_last(NULL, NULL, NULL);
    }
    Py_RETURN_NONE;
}

static PyObject *
referent_count(PyObject *module, PyObject *obj)
{
    (void)module;
    return PyLong_FromSsize_t(count_referents(obj));
}

static PyObject *
configure(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 5 || !PyType_Check(args[0]) || !PyCallable_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "configure(record_type, inline_referents, "
                                         "standard_count, long_length, slow)");
        return NULL;
    }
    Py_ssize_t values[3];
    for (int i = 0; i < 3; i++) {
        values[i] = PyLong_AsSsize_t(args[i + 1]);
        if (values[i] == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    Py_XSETREF(record_type, Py_NewRef(args[0]));
    Py_XSETREF(slow, Py_NewRef(args[4]));
    inline_referents = values[0];
    standard_count = values[1];
    long_length = values[2];
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"plain_message", (PyCFunction)(void (*)(void))plain_message, METH_FASTCALL,
     "The message of a plain record: a tuple (record, args, msg) when it is short, ASCII and "
     "without a hint; the rendered str when Python must judge it; None for any other record."},
    {"referent_count", referent_count, METH_O,
     "How many objects an object's GC traverse visits (-1 for an object without one)."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_FASTCALL,
     "configure(record_type, inline_referents, standard_count, long_length, slow)"},
    {"redact", (PyCFunction)(void (*)(void))redact, METH_FASTCALL | METH_KEYWORDS,
     "The filter: redact(record, plain=False); True (see fastpath.py)."},
    {"remembered", remembered, METH_O,
     "Whether the record is the one last found clean, with the same args and msg."},
    {"remember", (PyCFunction)(void (*)(void))remember, METH_FASTCALL,
     "remember(record, args, msg): the record found clean."},
    {"forget", forget, METH_O, "Forget the record, if it is the one remembered."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hygiene.masking._fastpath",
    .m_doc = "The filter's common case, compiled (see hygiene.masking.fastpath).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__fastpath(void)
{
    s_msg = PyUnicode_InternFromString("msg");
    s_args = PyUnicode_InternFromString("args");
    s_exc_info = PyUnicode_InternFromString("exc_info");
    s_stack_info = PyUnicode_InternFromString("stack_info");
    s_exc_text = PyUnicode_InternFromString("exc_text");
    s_dict = PyUnicode_InternFromString("__dict__");
    s_message = PyUnicode_InternFromString("message");
    s_asctime = PyUnicode_InternFromString("asctime");
    if (!s_msg || !s_args || !s_exc_info || !s_stack_info || !s_exc_text || !s_dict || !s_message
        || !s_asctime) {
        return NULL;
    }
    return PyModule_Create(&module_def);
}
