/* Whether a POSIX extended regular expression matches every text, as
 * glibc's regexec() searches. The pattern is parsed into a tree (the same
 * grammar regcomp takes: alternation, concatenation, *, +, ?, {m,n},
 * groups, bracket expressions, ., \w \W \s \S, the anchors ^ $ \` \' \b
 * \B \< \>), every character set is taken from glibc itself, and the tree
 * becomes a Thompson automaton. Searching adds the start state at every
 * position; a text has a match when the automaton reaches its end, the
 * anchors judged on the characters before and after the position. The
 * walk goes over sets of states and the character before, one character
 * class at a time, until it finds a text that ends without a match (not
 * every text matches) or has seen every set it can reach (every text
 * does). Anything the walk cannot take answers "cannot tell", which the
 * loader treats as "not every text". */
#include "regex_any.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define RX_MAX_NODES 4096   /* tree nodes */
#define RX_MAX_STATES 4096  /* automaton states */
#define RX_MAX_SETS 1100    /* character sets */
#define RX_MAX_CONFIGS 4096 /* sets of states the walk may visit */
#define RX_MAX_DEPTH 64	    /* nested groups */
/* states looked at over the whole walk: a hostile pattern's walk ends
 * (cannot tell) in a fraction of a second */
#define RX_MAX_WORK (32L << 20)

enum rx_node_type { N_EMPTY, N_SET, N_ASSERT, N_CAT, N_ALT, N_REPEAT };

struct rx_node {
	enum rx_node_type type;
	int a, b;     /* children (CAT, ALT; REPEAT: a), set index, or the assertion */
	int min, max; /* REPEAT; max -1: unbounded */
};

enum rx_state_type { S_EPS, S_SET, S_ASSERT, S_MATCH };

struct rx_state {
	enum rx_state_type type;
	int arg; /* set index or assertion */
	int out1, out2;
};

struct rx {
	const char *s;
	size_t pos;
	int cflags;
	bool bad; /* cannot tell */
	struct rx_node *nodes;
	int nnodes;
	uint64_t (*sets)[4]; /* membership of bytes 0..255 */
	int nsets;
	struct rx_state *st;
	int nst;
	int depth;
};

static int node_new(struct rx *r, enum rx_node_type t, int a, int b)
{
	if (r->nnodes >= RX_MAX_NODES) {
		r->bad = true;
		return 0;
	}
	r->nodes[r->nnodes] = (struct rx_node){ t, a, b, 0, 0 };
	return r->nnodes++;
}

static bool set_has(const uint64_t set[4], unsigned c)
{
	return set[c / 64] >> (c % 64) & 1;
}

/* The set of the one-character atom text[0..n) as glibc sees it. */
static int set_from_glibc(struct rx *r, const char *text, size_t n)
{
	char *atom = xasprintf("%.*s", (int)n, text);
	uint64_t *set;
	regex_t re;

	if (r->nsets >= RX_MAX_SETS || regcomp(&re, atom, REG_EXTENDED | REG_NOSUB | r->cflags)) {
		free(atom);
		r->bad = true;
		return 0;
	}
	set = r->sets[r->nsets];
	memset(set, 0, sizeof(r->sets[0]));
	for (unsigned c = 1; c < 256; c++) {
		char one[2] = { (char)c, '\0' };

		if (!regexec(&re, one, 0, NULL, 0))
			set[c / 64] |= (uint64_t)1 << (c % 64);
	}
	regfree(&re);
	free(atom);
	return node_new(r, N_SET, r->nsets++, 0);
}

/* The end of the bracket expression at p ("[...]"): its "]". */
static size_t bracket_end(const char *s, size_t p)
{
	p++;
	p += s[p] == '^';
	p += s[p] == ']';
	while (s[p] && s[p] != ']') {
		if (s[p] == '[' && (s[p + 1] == ':' || s[p + 1] == '=' || s[p + 1] == '.')) {
			const char *close = strchr(s + p + 2, s[p + 1]);

			while (close && close[1] != ']')
				close = strchr(close + 1, s[p + 1]);
			if (!close)
				return 0;
			p = (size_t)(close - s) + 2;
			continue;
		}
		p++;
	}
	return s[p] ? p : 0;
}

static int parse_alt(struct rx *r);

static int parse_atom(struct rx *r)
{
	const char *s = r->s;
	size_t p = r->pos, end;
	int n;

	switch (s[p]) {
	case '(':
		if (++r->depth > RX_MAX_DEPTH) {
			r->bad = true;
			return 0;
		}
		r->pos++;
		n = parse_alt(r);
		r->depth--;
		if (s[r->pos] != ')')
			r->bad = true;
		else
			r->pos++;
		return n;
	case '[':
		end = bracket_end(s, p);
		if (!end) {
			r->bad = true;
			return 0;
		}
		r->pos = end + 1;
		return set_from_glibc(r, s + p, end + 1 - p);
	case '.':
		r->pos++;
		return set_from_glibc(r, ".", 1);
	case '^':
	case '$':
		r->pos++;
		return node_new(r, N_ASSERT, s[p], 0);
	case '\\':
		if (!s[p + 1] || (s[p + 1] >= '0' && s[p + 1] <= '9')) {
			r->bad = true; /* a back-reference matches what was captured */
			return 0;
		}
		r->pos += 2;
		if (strchr("bB<>`'", s[p + 1]))
			return node_new(r, N_ASSERT, s[p + 1], 0);
		return set_from_glibc(r, s + p, 2);
	case ')':
	case '*':
	case '+':
	case '?':
	case '{':
		r->bad = true; /* glibc's reading of these here is its own */
		return 0;
	default:
		r->pos++;
		return set_from_glibc(r, s + p, 1);
	}
}

/* "{m}", "{m,}", "{m,n}", "{,n}" after an atom. */
static bool parse_interval(struct rx *r, int *min, int *max)
{
	const char *p = r->s + r->pos + 1;
	char *end;
	long m = 0, n;

	if (isdigit((unsigned char)*p)) {
		m = strtol(p, &end, 10);
		p = end;
	} else if (*p != ',') {
		return false;
	}
	n = m;
	if (*p == ',') {
		p++;
		n = -1;
		if (isdigit((unsigned char)*p)) {
			n = strtol(p, &end, 10);
			p = end;
		}
	}
	if (*p != '}' || m > 255 || n > 255 || (n >= 0 && n < m))
		return false;
	r->pos = (size_t)(p + 1 - r->s);
	*min = (int)m;
	*max = (int)n;
	return true;
}

static int parse_piece(struct rx *r)
{
	int n = parse_atom(r), min, max;

	while (!r->bad && r->s[r->pos] && strchr("*+?{", r->s[r->pos])) {
		char q = r->s[r->pos];

		if (q == '{' && !parse_interval(r, &min, &max)) {
			r->bad = true;
			break;
		}
		if (q != '{') {
			r->pos++;
			min = q == '+';
			max = q == '?' ? 1 : -1;
		}
		n = node_new(r, N_REPEAT, n, 0);
		r->nodes[n].min = min;
		r->nodes[n].max = max;
	}
	return n;
}

static int parse_branch(struct rx *r)
{
	int n = node_new(r, N_EMPTY, 0, 0);

	while (!r->bad && r->s[r->pos] && r->s[r->pos] != '|' && !(r->s[r->pos] == ')' && r->depth))
		n = node_new(r, N_CAT, n, parse_piece(r));
	return n;
}

static int parse_alt(struct rx *r)
{
	int n = parse_branch(r);

	while (!r->bad && r->s[r->pos] == '|') {
		r->pos++;
		n = node_new(r, N_ALT, n, parse_branch(r));
	}
	return n;
}

/* ---- the automaton ---- */

struct frag {
	int start, end; /* end: an S_EPS state whose out1 is still free */
};

static int state_new(struct rx *r, enum rx_state_type t, int arg)
{
	if (r->nst >= RX_MAX_STATES) {
		r->bad = true;
		return 0;
	}
	r->st[r->nst] = (struct rx_state){ t, arg, -1, -1 };
	return r->nst++;
}

static struct frag frag_one(struct rx *r, enum rx_state_type t, int arg)
{
	int s = state_new(r, t, arg), e = state_new(r, S_EPS, 0);

	r->st[s].out1 = e;
	return (struct frag){ s, e };
}

static struct frag frag_cat(struct rx *r, struct frag a, struct frag b)
{
	if (!r->bad)
		r->st[a.end].out1 = b.start;
	return (struct frag){ a.start, b.end };
}

static struct frag build(struct rx *r, int n);

/* x, then, through a choice, past it: x? (loop: x*) */
static struct frag frag_maybe(struct rx *r, int x, bool loop)
{
	int s = state_new(r, S_EPS, 0), e = state_new(r, S_EPS, 0);
	struct frag f = build(r, x);

	if (r->bad)
		return (struct frag){ 0, 0 };
	r->st[s].out1 = f.start;
	r->st[s].out2 = e;
	r->st[f.end].out1 = loop ? s : e;
	return (struct frag){ s, e };
}

static struct frag build_repeat(struct rx *r, const struct rx_node *nd)
{
	struct frag f = frag_one(r, S_EPS, 0);

	f.end = f.start;
	for (int i = 0; !r->bad && i < nd->min; i++)
		f = frag_cat(r, f, build(r, nd->a));
	if (nd->max < 0)
		return frag_cat(r, f, frag_maybe(r, nd->a, true));
	for (int i = nd->min; !r->bad && i < nd->max; i++)
		f = frag_cat(r, f, frag_maybe(r, nd->a, false));
	return f;
}

static struct frag build(struct rx *r, int n)
{
	const struct rx_node *nd = &r->nodes[n];
	struct frag a, b;
	int s, e;

	if (r->bad)
		return (struct frag){ 0, 0 };
	switch (nd->type) {
	case N_SET:
		return frag_one(r, S_SET, nd->a);
	case N_ASSERT:
		return frag_one(r, S_ASSERT, nd->a);
	case N_CAT:
		a = build(r, nd->a);
		return frag_cat(r, a, build(r, nd->b));
	case N_ALT:
		a = build(r, nd->a);
		b = build(r, nd->b);
		s = state_new(r, S_EPS, 0);
		e = state_new(r, S_EPS, 0);
		if (r->bad)
			return (struct frag){ 0, 0 };
		r->st[s].out1 = a.start;
		r->st[s].out2 = b.start;
		r->st[a.end].out1 = e;
		r->st[b.end].out1 = e;
		return (struct frag){ s, e };
	case N_REPEAT:
		return build_repeat(r, nd);
	case N_EMPTY:
	default:
		s = state_new(r, S_EPS, 0);
		return (struct frag){ s, s };
	}
}

/* ---- the walk ---- */

/* The characters, grouped into classes no set tells apart; rep: one of
 * each. The anchors also ask for newline and word characters. */
struct walk {
	const struct rx *r;
	int start, match;
	int nclass;
	unsigned char rep[256];
	size_t words;	   /* uint64_t per set of states */
	uint64_t *configs; /* words per config */
	uint64_t *hash;	   /* of each config, to compare first */
	int *prev;	   /* each config's class before */
	int nconfigs;
};

static bool is_word(int c)
{
	return c > 0 && (isalnum(c) || c == '_');
}

/* c: the character's class, -1 the text's start or end */
static bool assert_holds(const struct walk *w, int kind, int before, int after)
{
	int b = before < 0 ? -1 : w->rep[before], a = after < 0 ? -1 : w->rep[after];
	bool nl = w->r->cflags & REG_NEWLINE;

	switch (kind) {
	case '^':
		return b < 0 || (nl && b == '\n');
	case '$':
		return a < 0 || (nl && a == '\n');
	case '`':
		return b < 0;
	case '\'':
		return a < 0;
	case 'b':
		return is_word(b) != is_word(a);
	case 'B':
		return is_word(b) == is_word(a);
	case '<':
		return !is_word(b) && is_word(a);
	case '>':
		return is_word(b) && !is_word(a);
	default:
		return false;
	}
}

static void classes(struct walk *w, bool lines)
{
	const struct rx *r = w->r;

	w->nclass = 0;
	for (unsigned c = 1; c < 256; c++) {
		int k;

		if (lines && c == '\n')
			continue;
		for (k = 0; k < w->nclass; k++) {
			unsigned d = w->rep[k];
			bool same =
			    (c == '\n') == (d == '\n') && is_word((int)c) == is_word((int)d);

			for (int i = 0; same && i < r->nsets; i++)
				same = set_has(r->sets[i], c) == set_has(r->sets[i], d);
			if (same)
				break;
		}
		if (k == w->nclass)
			w->rep[w->nclass++] = (unsigned char)c;
	}
}

static void bit_set(uint64_t *v, int i)
{
	v[i / 64] |= (uint64_t)1 << (i % 64);
}

static bool bit_get(const uint64_t *v, int i)
{
	return v[i / 64] >> (i % 64) & 1;
}

/* Every state reachable from those in v without a character, at a
 * position between the classes before and after: into v. */
static void closure(const struct walk *w, uint64_t *v, int before, int after, int *stack)
{
	int top = 0;

	for (int i = 0; i < w->r->nst; i++)
		if (bit_get(v, i))
			stack[top++] = i;
	while (top) {
		const struct rx_state *s = &w->r->st[stack[--top]];
		int next[2] = { -1, -1 };

		if (s->type == S_EPS)
			next[0] = s->out1, next[1] = s->out2;
		else if (s->type == S_ASSERT && assert_holds(w, s->arg, before, after))
			next[0] = s->out1;
		for (int k = 0; k < 2; k++)
			if (next[k] >= 0 && !bit_get(v, next[k])) {
				bit_set(v, next[k]);
				stack[top++] = next[k];
			}
	}
}

/* The config (states v, class before) among those seen; else added.
 * 1 new, 0 seen, -1 too many. */
static int config_add(struct walk *w, const uint64_t *v, int before)
{
	uint64_t h = (uint64_t)(before + 2) * 0x9e3779b97f4a7c15u;

	for (size_t i = 0; i < w->words; i++)
		h = (h ^ v[i]) * 0x100000001b3u;
	for (int i = 0; i < w->nconfigs; i++)
		if (w->hash[i] == h && w->prev[i] == before &&
		    !memcmp(&w->configs[(size_t)i * w->words], v, w->words * 8))
			return 0;
	if (w->nconfigs >= RX_MAX_CONFIGS)
		return -1;
	memcpy(&w->configs[(size_t)w->nconfigs * w->words], v, w->words * 8);
	w->hash[w->nconfigs] = h;
	w->prev[w->nconfigs++] = before;
	return 1;
}

/* 1 every text has a match, 0 one has none, -1 cannot tell. */
static int walk(struct walk *w, bool lines)
{
	size_t words = w->words;
	uint64_t *cur = xcalloc(words, 8), *v = xcalloc(words, 8);
	int *stack = xcalloc((size_t)w->r->nst * 2 + 2, sizeof(int));
	long work = 0;
	int ret = 1;

	classes(w, lines);
	w->configs = xcalloc(words * RX_MAX_CONFIGS, 8);
	w->prev = xcalloc(RX_MAX_CONFIGS, sizeof(int));
	w->hash = xcalloc(RX_MAX_CONFIGS, sizeof(uint64_t));
	bit_set(cur, w->start);
	config_add(w, cur, -1);
	for (int i = 0; ret == 1 && i < w->nconfigs; i++) {
		int before = w->prev[i];

		memcpy(cur, &w->configs[(size_t)i * words], words * 8);
		/* the text ends here */
		memcpy(v, cur, words * 8);
		closure(w, v, before, -1, stack);
		if (!bit_get(v, w->match)) {
			ret = 0;
			break;
		}
		for (int k = 0; ret == 1 && k < w->nclass; k++) {
			uint64_t *next;

			work += w->r->nst;
			if (work > RX_MAX_WORK) {
				ret = -1;
				break;
			}
			next = xcalloc(words, 8);

			memcpy(v, cur, words * 8);
			closure(w, v, before, k, stack);
			if (!bit_get(v, w->match)) {
				for (int s = 0; s < w->r->nst; s++)
					if (bit_get(v, s) && w->r->st[s].type == S_SET &&
					    set_has(w->r->sets[w->r->st[s].arg], w->rep[k]))
						bit_set(next, w->r->st[s].out1);
				bit_set(next, w->start);
				if (config_add(w, next, k) < 0)
					ret = -1;
			}
			free(next);
		}
	}
	free(w->configs);
	free(w->prev);
	free(w->hash);
	free(stack);
	free(v);
	free(cur);
	return ret;
}

/* What the analysis says is checked against glibc on a few texts: a
 * pattern said to match every text that misses one is a fault here, and
 * then nothing is refused. */
static bool glibc_agrees(const regex_t *re, bool lines)
{
	static const char *const texts[] = { "",     "a",    "_",  " ",	     "0",
					     "\x01", "\xff", "\n", "ab\ncd", "\n\n" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (!(lines && strchr(texts[i], '\n')) && regexec(re, texts[i], 0, NULL, 0))
			return false;
	return true;
}

int regex_matches_any(const char *pattern, int cflags, bool lines)
{
	struct rx r = { .s = pattern, .cflags = cflags };
	struct walk w = { .r = &r };
	struct frag f;
	regex_t re;
	int root, ret = 0;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | cflags))
		return -EINVAL;
	r.nodes = xcalloc(RX_MAX_NODES, sizeof(*r.nodes));
	r.sets = xcalloc(RX_MAX_SETS, sizeof(*r.sets));
	r.st = xcalloc(RX_MAX_STATES, sizeof(*r.st));
	root = parse_alt(&r);
	if (r.s[r.pos])
		r.bad = true; /* an unmatched ")" */
	f = build(&r, root);
	if (!r.bad) {
		w.start = f.start;
		w.match = state_new(&r, S_MATCH, 0);
		r.st[f.end].out1 = w.match;
	}
	if (!r.bad) {
		w.words = ((size_t)r.nst + 63) / 64;
		ret = walk(&w, lines) == 1 && glibc_agrees(&re, lines);
	}
	regfree(&re);
	free(r.nodes);
	free(r.sets);
	free(r.st);
	return ret;
}
