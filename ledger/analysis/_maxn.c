/* Max-n search of one deal in C: the same values as ``solver.py``'s Python max-n.
 *
 * Why C: a 4-seat deal each for himself has no single opponent, so max-n cannot cut
 * as alpha-beta does and must value millions of positions; in Python that took
 * seconds to minutes per deal (and more memory than a web worker should hold).
 *
 * What stays in Python: everything the rules decide. The caller passes the tiles'
 * numbers and pips, each seat's side and losers, the rounding table, the stock's
 * order, and a callable that values a blocked position (the rules' own hook). The
 * board (ends, doubles, the Fives spinner) and the Fives count are the engine's
 * ``place`` and ``fives_count``, written again here; the tests compare this search
 * with the Python one and with brute force on every table.
 *
 * The table keeps exact values and may drop any of them when full (a dropped
 * position is searched again when met): memory is bounded and no value is guessed.
 * A position is keyed by what decides the rest of the deal, so that positions alike
 * share one value: ends that differ only in which is called which (``canonical``), and
 * not the moves of a seat that has only one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <string.h>

#define NT 28
#define CLOSED 7
#define NEG_INF (-(1 << 20))
#define MAX_MOVES 64
#define FLIP_DEPTH 4 /* branchings near the root where the second thread goes its own way */

/* A board in 23 bits: four ends (3 bits each, 7 closed: left, right, up, down), four
 * "a double lies at this end" flags, the spinner's number (7: none), four arm flags. */
#define END(b, i) (((b) >> (3 * (i))) & 7u)
#define DBL(b, i) (((b) >> (12 + (i))) & 1u)
#define SPIN(b) (((b) >> 16) & 7u)
#define ARMS(b) (((b) >> 19) & 15u)

static PyObject *TooLong; /* the module's exception: a solve visited too many positions */

/* A kept position: its key (0: slot free) and its value. Four to a 64-byte line. */
typedef struct {
    uint64_t key;
    int16_t v[4];
} Entry;

#define WAYS 4
#define BLOCK_SLOTS (1u << 14)

typedef struct {
    PyObject_HEAD
    int seats, sides, fives, nstock;
    int dbits;          /* bits per stock place in ``drawers``: who drew that tile */
    uint32_t dmask;
    int counts_partner; /* two sides of more seats: the winner also scores his partner */
    int block_kind;     /* which rules' block hook is written again below (0: none) */
    int leader;         /* who led the deal: some block hooks read it */
    int side[4];
    int losers[4];  /* bit mask of the seats whose pips a seat wins by going out */
    int hi[NT], lo[NT], pips[NT];
    uint32_t suit[8];
    int stock[NT];
    int stock_at[NT]; /* a tile's place in the stock, -1 if dealt */
    int stock_rest[NT + 1];
    int round5[1024];
    PyObject *block;
    Entry *table;
    /* Fives each for himself, no stock, a large table: 8-byte entries (``compact``), each
     * line of ``cmask`` + 1 holding eight. */
    int compact;
    uint64_t cmask;
    int cshift;
    size_t table_bytes;
    Entry *blocked; /* block values by hands: the rules' hook is Python, and slow */
    uint64_t mask;
    uint64_t stored, nodes, blocks;
    uint64_t node_limit; /* this solve's last allowed node (0: no limit) */
    /* search state */
    uint32_t hands[4];
    int hp[4]; /* pips in hand */
    int error;     /* 1: a Python error is set; 2: past the visit limit; 3: told to stop */
    /* Two threads on one solve: each has its own copy of this struct (hands, counts). */
    int threads;   /* how many may work on one solve */
    int threaded;  /* this copy searches alongside another: lock lines, no Python */
    int flip;      /* this copy tries the first branchings' moves last-first */
    int depth;     /* branchings above the position searched */
    int *stop;     /* set once one copy has the answer */
    /* Fibers: several searches of one position on one thread (see "fibers" below). */
    int fibers;    /* how many per thread (1: none) */
    int code;      /* this fiber's order of the first branchings' moves (0: the usual) */
    uint32_t radix; /* the branchings above, multiplied: where ``code`` is read next */
    int must;      /* the position searched next may not be left to another fiber */
    struct Fiber *fib; /* the fiber this copy runs on, or NULL */
    uint64_t fibered;  /* solves worked out on fibers */
} Search;

#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define HAVE_FIBERS 1
static void fiber_yield(Search *s);
#else
#define HAVE_FIBERS 0
#endif

/* Once the spinner has opened its four ends they are alike: each is its number, whether a
 * double lies there and whether a tile lies on its arm (an empty arm shows the spinner's
 * number and adds nothing). Sorted with the armed ends first, left and right stay armed,
 * as place() and fives_count() expect; the spinner's own number no longer matters. */
/* An end as a number to sort by: armed first, then its number, then a double on it. */
#define OPEN_CODE(b, i) ((((~(b) >> (19 + (i))) & 1u) << 4) | ((((b) >> (3 * (i))) & 7u) << 1) \
                         | (((b) >> (12 + (i))) & 1u))
#define OPEN_BITS(c, i) ((((c) >> 1) & 7u) << (3 * (i)) | ((c) & 1u) << (12 + (i)) \
                         | ((((c) >> 4) & 1u) ^ 1u) << (19 + (i)))

/* OPEN_BITS of every code at every place, filled at import (``fill_open_bits``). */
static uint32_t open_bits[4][32];

/* What an end adds to the count, by its OPEN_CODE (an end with no tile on its arm: 0). */
static int open_pips[32];

static void fill_open_bits(void) {
    for (uint32_t i = 0; i < 4; i++)
        for (uint32_t c = 0; c < 32; c++) open_bits[i][c] = OPEN_BITS(c, i);
    for (uint32_t c = 0; c < 32; c++)
        open_pips[c] = c >> 4 ? 0 : (int)(((c >> 1) & 7u) << (c & 1u));
}

/* Written out, not looped: it runs for every move the search makes (a profile put a
 * fifth of the search's instructions here when it was a loop over an array). */
static inline __attribute__((always_inline)) uint32_t sort_open(uint32_t e0, uint32_t e1,
                                                                uint32_t e2, uint32_t e3) {
    /* A sorting network: no branch to mispredict in the search's innermost step. */
#define SORT2(x, y) do { uint32_t lo_ = (x) < (y) ? (x) : (y); \
                         (y) = (x) ^ (y) ^ lo_; (x) = lo_; } while (0)
    SORT2(e0, e1);
    SORT2(e2, e3);
    SORT2(e0, e2);
    SORT2(e1, e3);
    SORT2(e1, e2);
#undef SORT2
    /* spinner number 0: not CLOSED, so arms are still kept */
    return open_bits[0][e0] | open_bits[1][e1] | open_bits[2][e2] | open_bits[3][e3];
}

static inline __attribute__((always_inline)) uint32_t canonical_open(uint32_t b) {
    return sort_open(OPEN_CODE(b, 0), OPEN_CODE(b, 1), OPEN_CODE(b, 2), OPEN_CODE(b, 3));
}

/* Ends ``i`` and ``i`` + 1 (number, double, arm) swapped when ``swap`` is 1. */
static inline __attribute__((always_inline)) uint32_t swap_ends(uint32_t b, int i,
                                                                uint32_t swap) {
    uint32_t m = 0u - swap;
    uint32_t n = ((b >> (3 * i)) ^ (b >> (3 * (i + 1)))) & 7u & m;
    uint32_t d = ((b >> (12 + i)) ^ (b >> (13 + i))) & 1u & m;
    uint32_t a = ((b >> (19 + i)) ^ (b >> (20 + i))) & 1u & m;
    return b ^ (n << (3 * i)) ^ (n << (3 * (i + 1))) ^ (d << (12 + i)) ^ (d << (13 + i))
        ^ (a << (19 + i)) ^ (a << (20 + i));
}

#define PAIR_CODE(b, i) (END(b, i) | DBL(b, i) << 3 | ((ARMS(b) >> (i)) & 1u) << 4)

static inline __attribute__((always_inline)) uint32_t canonical(uint32_t b, int fives) {
    if (!fives) b &= ~(15u << 12);
    else if (SPIN(b) != CLOSED && END(b, 2) != CLOSED) return canonical_open(b);
    /* Left and right are alike, and so are up and down: the smaller one first. */
    b = swap_ends(b, 0, PAIR_CODE(b, 0) > PAIR_CODE(b, 1));
    return swap_ends(b, 2, PAIR_CODE(b, 2) > PAIR_CODE(b, 3));
}

static inline uint32_t fit_of(const Search *s, uint32_t b) {
    return s->suit[END(b, 0)] | s->suit[END(b, 1)] | s->suit[END(b, 2)] | s->suit[END(b, 3)];
}

static inline uint32_t set_end(uint32_t b, int i, uint32_t n, uint32_t dbl) {
    b &= ~(7u << (3 * i)) & ~(1u << (12 + i));
    return b | n << (3 * i) | dbl << (12 + i);
}

/* ``board.place``: tile t laid on end i. */
static inline __attribute__((always_inline)) uint32_t place(const Search *s, uint32_t b, int t, int i) {
    uint32_t n = END(b, i);
    uint32_t other = (n == (uint32_t)s->hi[t]) ? (uint32_t)s->lo[t] : (uint32_t)s->hi[t];
    b = set_end(b, i, other, s->hi[t] == s->lo[t]);
    uint32_t spin = SPIN(b);
    if (spin != CLOSED) {
        uint32_t arms = ARMS(b) | 1u << i;
        b = (b & ~(15u << 19)) | arms << 19;
        if (i < 2 && (arms & 3u) == 3u && END(b, 2) == CLOSED && !(arms & 12u)) {
            b = set_end(b, 2, spin, 0);
            b = set_end(b, 3, spin, 0);
        }
    }
    return b;
}

/* ``board.fives_count``: the open ends added up (a double counts twice). */
#define END_PIPS(b, i) ((int)(END(b, i) << DBL(b, i)))

static inline __attribute__((always_inline)) int fives_count(uint32_t b) {
    uint32_t spin = SPIN(b);
    if (spin != CLOSED) {
        int arms = (int)ARMS(b);
        int total = (arms & 3) != 3 ? 2 * (int)spin : 0;
        return total + (END_PIPS(b, 0) & -(arms & 1)) + (END_PIPS(b, 1) & -(arms >> 1 & 1))
            + (END_PIPS(b, 2) & -(arms >> 2 & 1)) + (END_PIPS(b, 3) & -(arms >> 3 & 1));
    }
    return END_PIPS(b, 0) + END_PIPS(b, 1);
}


/* ``canonical(b, 1)`` and, into ``count``, ``fives_count(b)``: on an open board both
 * come from the ends' codes, worked out once. */
static inline __attribute__((always_inline)) uint32_t canonical_count(uint32_t b,
                                                                      int *count) {
    if (SPIN(b) != CLOSED && END(b, 2) != CLOSED) {
        uint32_t e0 = OPEN_CODE(b, 0), e1 = OPEN_CODE(b, 1), e2 = OPEN_CODE(b, 2),
                 e3 = OPEN_CODE(b, 3);
        *count = ((ARMS(b) & 3u) != 3u ? 2 * (int)SPIN(b) : 0)
            + open_pips[e0] + open_pips[e1] + open_pips[e2] + open_pips[e3];
        return sort_open(e0, e1, e2, e3);
    }
    *count = fives_count(b);
    return canonical(b, 1);
}

static inline uint64_t mix(uint64_t k) {
    k ^= k >> 31;
    k *= 0x9E3779B97F4A7C15ull;
    k ^= k >> 29;
    k *= 0xBF58476D1CE4E5B9ull;
    return k ^ (k >> 32);
}

#if HAVE_FIBERS
#define BUSY_SLOTS 1024u /* fibers x the deepest search, well below half */

typedef struct Fiber {
    void *sp;               /* where its registers were saved when it last switched */
    struct Fiber *next;     /* the ring */
    struct Ring *ring;
    Search *s;
    uint32_t u, drawers, b;
    int p, pos, r;
    int16_t out[4];
    char *stack;
} Fiber;

typedef struct Ring {
    void *main_sp;          /* the thread's own stack */
    Fiber *ended;           /* the first fiber to end (with a value, or an error) */
    Fiber *resume;          /* after a look at the signals */
    unsigned switches;
    int signals;            /* this thread holds the GIL: look at Python's signals */
    /* The positions being searched on some fiber of the ring: another fiber that meets
     * one searches its other moves first, then waits for it rather than search it too. */
    uint64_t busy[BUSY_SLOTS];
} Ring;

static inline unsigned busy_slot(uint64_t key) {
    return (unsigned)(mix(key) >> 40) & (BUSY_SLOTS - 1);
}

static int busy_has(const Ring *r, uint64_t key) {
    for (unsigned i = busy_slot(key);; i = (i + 1) & (BUSY_SLOTS - 1)) {
        if (r->busy[i] == key) return 1;
        if (!r->busy[i]) return 0;
    }
}

static void busy_add(Ring *r, uint64_t key) {
    unsigned i = busy_slot(key);
    while (r->busy[i]) i = (i + 1) & (BUSY_SLOTS - 1);
    r->busy[i] = key;
}

/* Linear probing: the keys after the one removed move back into its hole. */
static void busy_del(Ring *r, uint64_t key) {
    unsigned i = busy_slot(key);
    while (r->busy[i] != key) i = (i + 1) & (BUSY_SLOTS - 1);
    for (unsigned j = (i + 1) & (BUSY_SLOTS - 1); r->busy[j]; j = (j + 1) & (BUSY_SLOTS - 1)) {
        unsigned want = busy_slot(r->busy[j]);
        /* j's key may fill the hole i when its home is not in (i, j] (cyclically). */
        if (((j - want) & (BUSY_SLOTS - 1)) >= ((j - i) & (BUSY_SLOTS - 1))) {
            r->busy[i] = r->busy[j];
            i = j;
        }
    }
    r->busy[i] = 0;
}


#endif

/* A position in 64 bits (every table that needs max-n fits; checked at init): the tiles
 * still held, the board (all of it with Fives; else only its two ends), the seat to
 * move, and with a stock its place and who drew each tile still held. Bit 63 is set so
 * that no key is 0. */
static inline uint64_t key_of(const Search *s, uint32_t u, uint32_t drawers, uint32_t b,
                              int p, int pos) {
    /* Fives with a stock (two seats only): who drew what is the entry's ``extra`` key. */
    if (s->fives)
        return (uint64_t)u | (uint64_t)b << 28 | (uint64_t)p << 51 | (uint64_t)pos << 53
            | 1ull << 63;
    return (uint64_t)u | (uint64_t)(b & 63u) << 28 | (uint64_t)p << 34 | (uint64_t)pos << 36
        | (uint64_t)drawers << 41 | 1ull << 63;
}

/* A bijection of 53-bit numbers: a Fives key without a stock has 53 bits (tiles held,
 * board, seat), so its line and a check of the other bits tell it exactly. */
#define KEY53 ((1ull << 53) - 1)

static inline uint64_t mix53(uint64_t k) {
    k &= KEY53;
    k ^= k >> 29;
    k = (k * 0x9E3779B97F4A7C15ull) & KEY53;
    k ^= k >> 26;
    k = (k * 0xBF58476D1CE4E5B9ull) & KEY53;
    return k ^ (k >> 27);
}

static inline Entry *bucket(const Search *s, uint64_t key) {
    if (s->compact) return s->table + ((mix53(key) & s->cmask) << 2);
    return s->table + (mix(key) & s->mask & ~(uint64_t)(WAYS - 1));
}

/* Compact entries: four values of 7 bits each (points / 5: every Fives score is a
 * multiple of 5, and no seat scores 640 in a deal), the tiles held (at most 15: it only
 * chooses what to drop; 0: free) and 32 bits that, with the line, are the key. One word:
 * two threads read and write it whole, with no lock. */
static int recall_compact(const Search *s, Entry *line, uint64_t key, int16_t *out) {
    uint64_t h = mix53(key), *w = (uint64_t *)line;
    uint64_t check = h >> s->cshift;
    for (int i = 0; i < 2 * WAYS; i++) {
        uint64_t x = __atomic_load_n(w + i, __ATOMIC_RELAXED);
        if ((x >> 32) == check && (x >> 28 & 15u)) {
            for (int k = 0; k < 4; k++) out[k] = (int16_t)(((x >> (7 * k)) & 127u) * 5);
            return 1;
        }
    }
    return 0;
}

static void store_compact(Search *s, Entry *line, uint64_t key, const int16_t *v) {
    uint64_t word = 0, *w = (uint64_t *)line;
    for (int k = 0; k < 4; k++) {
        if (v[k] < 0 || v[k] >= 640 || v[k] % 5) return; /* not kept: searched again */
        word |= (uint64_t)(v[k] / 5) << (7 * k);
    }
    int held = __builtin_popcount((uint32_t)(key & 0xFFFFFFFu));
    uint64_t h = mix53(key), check = h >> s->cshift;
    word |= (uint64_t)(held > 15 ? 15 : held) << 28 | check << 32;
    int slot = 0, fewest = 99;
    for (int i = 0; i < 2 * WAYS; i++) {
        uint64_t x = __atomic_load_n(w + i, __ATOMIC_RELAXED);
        int kept = (int)(x >> 28 & 15u);
        if (!kept) {
            slot = i;
            s->stored++;
            break;
        }
        if (kept < fewest) {
            fewest = kept;
            slot = i;
        }
    }
    __atomic_store_n(w + slot, word, __ATOMIC_RELAXED);
}

/* Two threads share the table while they search one position (``solve``): a line of
 * four entries is read and written under a lock, bit 62 of its first key (no key uses
 * it), so that no thread ever reads a key with another position's value. */
#define LOCK_BIT (1ull << 62)

static inline void lock_line(const Search *s, Entry *e) {
    if (!s->threaded) return;
    for (;;) {
        uint64_t k = __atomic_load_n(&e[0].key, __ATOMIC_RELAXED);
        if (!(k & LOCK_BIT) && __atomic_compare_exchange_n(&e[0].key, &k, k | LOCK_BIT, 0,
                                                           __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
    }
}

static inline void unlock_line(const Search *s, Entry *e) {
    if (s->threaded) __atomic_fetch_and(&e[0].key, ~LOCK_BIT, __ATOMIC_RELEASE);
}

static inline Entry *lookup(Entry *e, uint64_t key) {
    for (int w = 0; w < WAYS; w++)
        if ((e[w].key & ~LOCK_BIT) == key) return e + w;
    return NULL;
}

/* A kept value into ``out``: 1 if the position is kept. */
static inline int recall(const Search *s, Entry *line, uint64_t key, int16_t *out) {
    if (s->compact) return recall_compact(s, line, key, out);
    lock_line(s, line);
    Entry *hit = lookup(line, key);
    if (hit) memcpy(out, hit->v, 4 * sizeof *out);
    unlock_line(s, line);
    return hit != NULL;
}

/* A free slot, else the one with the smallest subtree (fewest tiles held): it is the
 * cheapest to search again. */
static void store(Search *s, Entry *e, uint64_t key, const int16_t *v) {
    if (s->compact) {
        store_compact(s, e, key, v);
        return;
    }
    Entry *slot = NULL;
    int fewest = 99;
    lock_line(s, e);
    for (int w = 0; w < WAYS; w++) {
        if (!(e[w].key & ~LOCK_BIT)) {
            slot = e + w;
            s->stored++;
            break;
        }
        int held = __builtin_popcount((uint32_t)(e[w].key & 0xFFFFFFFu));
        if (held < fewest) {
            fewest = held;
            slot = e + w;
        }
    }
    memcpy(slot->v, v, sizeof slot->v);
    slot->key = slot == e && s->threaded ? key | LOCK_BIT : key;
    unlock_line(s, e);
}

/* Max-n preference of ``side``: is a better than b? (``solver.maxn_key``) */
static int better(const int16_t *a, const int16_t *b, int side, int sides) {
    if (a[side] != b[side]) return a[side] > b[side];
    int ma = NEG_INF, mb = NEG_INF, sa = 0, sb = 0;
    for (int k = 0; k < sides; k++) {
        if (k == side) continue;
        if (a[k] > ma) ma = a[k];
        if (b[k] > mb) mb = b[k];
        sa += a[k];
        sb += b[k];
    }
    if (ma != mb) return ma < mb;
    if (sa != sb) return sa < sb;
    for (int k = 0; k < sides; k++)
        if (a[k] != b[k]) return a[k] < b[k];
    return 0;
}

/* --- the rules' block hooks, written again ------------------------------------------
 *
 * Valuing a block through the rules' Python hook costs more than the rest of a
 * two-side search. The hooks of the seeds' tables are written again here (``kind``,
 * chosen by ``solver.py`` from the hook itself; 0: ask the hook); the tests compare
 * each with its hook. The winner: a seat, or -1 when nobody scores. */

enum { BLOCK_HOOK, BLOCK_LOWEST_OR_TIE, BLOCK_DOMENA_PAIRS, BLOCK_PARTNER, BLOCK_ARENA,
       BLOCK_SELMINHA_PAIRS, BLOCK_SELMINHA };

/* A hand's tile pips, lowest first, compared as Python compares sorted lists. */
static int tiles_order(const Search *s, uint32_t a, uint32_t b) {
    int pa[NT], pb[NT], na = 0, nb = 0;
    for (uint32_t x = a; x; x &= x - 1) pa[na++] = s->pips[__builtin_ctz(x)];
    for (uint32_t x = b; x; x &= x - 1) pb[nb++] = s->pips[__builtin_ctz(x)];
    for (int i = 1; i < na; i++)
        for (int j = i; j > 0 && pa[j - 1] > pa[j]; j--) { int t = pa[j]; pa[j] = pa[j - 1]; pa[j - 1] = t; }
    for (int i = 1; i < nb; i++)
        for (int j = i; j > 0 && pb[j - 1] > pb[j]; j--) { int t = pb[j]; pb[j] = pb[j - 1]; pb[j - 1] = t; }
    for (int i = 0; i < na && i < nb; i++)
        if (pa[i] != pb[i]) return pa[i] < pb[i] ? -1 : 1;
    return na < nb ? -1 : na > nb;
}

static int block_winner(const Search *s) {
    int n = s->seats, low = 1 << 20, nlow = 0, low_sides = 0, first_low = -1;
    for (int k = 0; k < n; k++) if (s->hp[k] < low) low = s->hp[k];
    for (int k = 0; k < n; k++)
        if (s->hp[k] == low) {
            if (first_low < 0) first_low = k;
            nlow++;
            low_sides |= 1 << s->side[k];
        }
    int totals[2] = {0, 0};
    if (s->sides == 2)
        for (int k = 0; k < n; k++) totals[s->side[k]] += s->hp[k];
    switch (s->block_kind) {
    case BLOCK_LOWEST_OR_TIE:
        return nlow == 1 ? first_low : -1;
    case BLOCK_PARTNER:
        return low_sides == 1 || low_sides == 2 ? first_low : -1;
    case BLOCK_ARENA:
        for (int k = 0; k < n; k++) {
            int seat = (s->leader + k) % n;
            if (s->hp[seat] == low) return seat;
        }
        return -1;
    case BLOCK_SELMINHA_PAIRS:
        return totals[0] == totals[1] ? -1 : totals[0] < totals[1] ? 0 : 1;
    case BLOCK_SELMINHA: {
        if (nlow == 1) return first_low;
        int best = -1, tied = 0;
        for (int k = 0; k < n; k++) {
            if (s->hp[k] != low) continue;
            int c = best < 0 ? -1 : tiles_order(s, s->hands[k], s->hands[best]);
            if (c < 0) best = k, tied = 0;
            else if (c == 0) tied = 1;
        }
        return tied ? -1 : best;
    }
    case BLOCK_DOMENA_PAIRS: {
        int side;
        if (low_sides == 1 || low_sides == 2) side = low_sides == 1 ? 0 : 1;
        else if (totals[0] == totals[1]) return -1;
        else side = totals[0] < totals[1] ? 0 : 1;
        /* The pair's lower hand; partners equal: the first after the leader, him last. */
        int best = -1;
        for (int k = 1; k <= n; k++) {
            int seat = (s->leader + k) % n;
            if (s->side[seat] == side && (best < 0 || s->hp[seat] < s->hp[best])) best = seat;
        }
        return best;
    }
    }
    return -1;
}

static int block_value(Search *s, uint32_t u, uint32_t drawers, int16_t *out) {
    uint64_t key = (uint64_t)u | (uint64_t)drawers << 28 | 1ull << 63;
    Entry *slot = s->blocked + (mix(key) & (BLOCK_SLOTS - 1));
    if (slot->key == key) {
        memcpy(out, slot->v, 4 * sizeof *out);
        return 0;
    }
    s->blocks++;
    if (s->block_kind != BLOCK_HOOK) {
        memset(out, 0, 4 * sizeof *out);
        int w = block_winner(s);
        if (w >= 0) {
            int pts = 0;
            for (int k = 0; k < s->seats; k++)
                if (s->losers[w] >> k & 1) pts += s->hp[k];
            out[s->side[w]] = (int16_t)(s->fives ? s->round5[pts] : pts);
        }
        slot->key = key;
        memcpy(slot->v, out, 4 * sizeof *out);
        return 0;
    }
    PyObject *r = PyObject_CallFunction(s->block, "IIII", s->hands[0], s->hands[1],
                                        s->hands[2], s->hands[3]);
    if (r == NULL) return -1;
    PyObject *seq = PySequence_Fast(r, "the block hook must return a sequence");
    Py_DECREF(r);
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != s->sides) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a block value has one number per side");
        return -1;
    }
    memset(out, 0, 4 * sizeof *out);
    for (int k = 0; k < s->sides; k++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, k));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[k] = (int16_t)x;
    }
    Py_DECREF(seq);
    slot->key = key;
    memcpy(slot->v, out, 4 * sizeof *out);
    return 0;
}

/* One more position visited: -1 (and ``error``) past the limit, on a signal, or when
 * the other thread has the answer. A thread holds no GIL: it only notes why. */
static inline int count_node(Search *s) {
    if (s->node_limit && ++s->nodes > s->node_limit) {
        if (!s->threaded)
            PyErr_SetString(TooLong, "the search reached its limit of positions visited");
        return s->error = s->threaded ? 2 : 1, -1;
    }
    if (!s->node_limit) s->nodes++;
    if ((s->nodes & 0xFFFF) == 0) {
        if (s->threaded) {
            if (__atomic_load_n(s->stop, __ATOMIC_RELAXED)) return s->error = 3, -1;
        } else if (PyErr_CheckSignals() < 0) {
            return s->error = 1, -1;
        }
    }
    return 0;
}

typedef struct {
    uint32_t board;
    int tile, gain, order; /* tile | end << 5 */
} MoveT;

/* The bucket of the position after tile ``t`` is played, most likely a miss in the
 * cache: ask for it now, for the seat that will move there (the next ones may pass: a
 * request for a position never looked up takes the room of one that is). None when the
 * move ends the deal. With a stock the next seat draws rather than passes. */
static inline void prefetch_child(const Search *s, uint32_t nu, uint32_t drawers, uint32_t nb,
                                  int q, int pos, int t) {
    int p = (q + s->seats - 1) % s->seats;
    uint32_t left = s->hands[p] ^ 1u << t, nf = fit_of(s, nb);
    if (!left) return;
    if (pos >= s->nstock) {
        if (!(nu & nf)) return;
        for (int k = 0; k < s->seats && !((q == p ? left : s->hands[q]) & nf); k++)
            q = (q + 1) % s->seats;
    }
    __builtin_prefetch(bucket(s, key_of(s, nu, drawers, nb, q, pos)));
}

/* The moves of the tiles ``fit`` on board ``b`` (one per board made and score); when
 * ``ordered``, likely best first: ``first`` (a kept best move), then the fewest answers
 * left to the next seat ``q``, the heaviest tile and the largest score. Both searches
 * use it. */
static int gen_moves(const Search *s, uint32_t u, uint32_t drawers, uint32_t b, uint32_t fit,
                     int q, int pos, int first, int ordered, MoveT *mv) {
    int n = 0;
    uint32_t hq = s->hands[q];
    for (uint32_t x = fit; x; x &= x - 1) {
        int t = __builtin_ctz(x);
        int from = n;
        for (int i = 0; i < 4; i++) {
            uint32_t e = END(b, i);
            if (e == CLOSED || (e != (uint32_t)s->hi[t] && e != (uint32_t)s->lo[t])) continue;
            uint32_t nb = place(s, b, t, i);
            int gain = 0;
            if (s->fives) {
                int c;
                nb = canonical_count(nb, &c);
                gain = (c > 0 && c % 5 == 0) ? c : 0;
            } else {
                nb = canonical(nb, 0);
            }
            int dup = 0;
            for (int k = from; k < n; k++)
                if (mv[k].board == nb && mv[k].gain == gain) dup = 1;
            if (dup) continue;
            mv[n].board = nb;
            mv[n].tile = t | i << 5;
            mv[n].gain = gain;
            prefetch_child(s, u ^ 1u << t, drawers, nb, q, pos, t);
            if (ordered)
                mv[n].order = (t | i << 5) == first ? -(1 << 20)
                    : (__builtin_popcount(hq & fit_of(s, nb)) << 8) - s->pips[t] - gain;
            n++;
        }
    }
    if (!ordered) return n;
    for (int i = 1; i < n; i++) { /* insertion sort: a handful of moves */
        MoveT m = mv[i];
        int j = i - 1;
        while (j >= 0 && mv[j].order > m.order) {
            mv[j + 1] = mv[j];
            j--;
        }
        mv[j + 1] = m;
    }
    return n;
}

static inline void reverse_moves(MoveT *mv, int i, int j) {
    for (; i < j; i++, j--) {
        MoveT m = mv[i];
        mv[i] = mv[j];
        mv[j] = m;
    }
}

/* The search: 1 with ``out`` the exact future points per side, 0 when the position is
 * worth less than ``limit`` to ``parent`` (shallow pruning, one-winner tables only),
 * -1 on a Python error. */
static int mx(Search *s, uint32_t u, uint32_t drawers, uint32_t b, int p, int pos,
              int parent, int limit, int16_t *out) {
    if (count_node(s) < 0) return -1;
    uint32_t fm = fit_of(s, b);
    uint32_t h = s->hands[p];
    uint32_t fit = h & fm;
    if (!fit) {
        if (pos < s->nstock) { /* a forced draw: the stock's next tile */
            int t = s->stock[pos];
            uint32_t lb = 1u << t;
            s->hands[p] = h | lb;
            s->hp[p] += s->pips[t];
            uint32_t nu = u | lb;
            int r;
            if (pos + 1 == s->nstock && !(nu & fm))
                r = block_value(s, nu, drawers | (uint32_t)p << (s->dbits * pos), out) < 0 ? -1 : 1;
            else r = mx(s, nu, drawers | (uint32_t)p << (s->dbits * pos), b, p, pos + 1, parent, limit, out);
            s->hands[p] = h;
            s->hp[p] -= s->pips[t];
            return r;
        }
        return mx(s, u, drawers, b, (p + 1) % s->seats, pos, parent, limit, out);
    }
    /* A forced move (one tile, one way to lay it) is not kept: its value is its child's,
     * and the child is kept, so the room goes to positions that branch. A position with
     * one tile that fits is looked up once its moves are known, any other at once. */
    uint64_t key = key_of(s, u, drawers, b, p, pos);
    Entry *line = bucket(s, key);
    int one_tile = !(fit & (fit - 1));
#if HAVE_FIBERS
    if (s->fib && !one_tile) { /* while its line comes, the other fibers search */
        __builtin_prefetch(line);
        fiber_yield(s);
    }
#endif
    if (!one_tile && recall(s, line, key, out)) return 1;
    int q = (p + 1) % s->seats;
    MoveT mv[MAX_MOVES];
    /* Max-n with Fives skips nothing, whatever the order: its moves are taken as made. */
    int n = gen_moves(s, u, drawers, b, fit, q, pos, -1, !s->fives, mv);
    if (n == 1) line = NULL;
    else if (one_tile) {
#if HAVE_FIBERS
        if (s->fib) fiber_yield(s);
#endif
        if (recall(s, line, key, out)) return 1;
    }
    if (s->flip && n > 1 && s->depth < FLIP_DEPTH) /* the other thread's order, reversed */
        reverse_moves(mv, 0, n - 1);
    uint32_t radix = s->radix;
    if (s->code && n > 1 && s->depth < FLIP_DEPTH) { /* a fiber's own order: a rotation */
        int r = (int)(((uint32_t)s->code / radix) % (uint32_t)n);
        s->radix = radix * (uint32_t)n;
        if (r) { /* the r first moves to the end, in place: no second array on the stack */
            reverse_moves(mv, 0, r - 1);
            reverse_moves(mv, r, n - 1);
            reverse_moves(mv, 0, n - 1);
        }
    }
    s->depth += n > 1;
    int mine = s->side[p];
    int single = !s->fives;
    int prune = single && p != parent;
    int pt = s->hp[p];
    int ceiling = 1 << 20;
    if (single) {
        int total = 0;
        for (int k = 0; k < s->seats; k++) total += s->hp[k];
        ceiling = total - pt + s->stock_rest[pos];
    }
    int16_t best[4] = {0, 0, 0, 0}, vec[4];
    int have = 0;
    int child_limit = NEG_INF;
#if HAVE_FIBERS
    /* Below the first branchings (where the fibers go their own ways), a position is
     * searched by one fiber at a time: another that meets it tries its other moves first
     * (``deferred``), then waits for its value. */
    Ring *ring = s->fib ? s->fib->ring : NULL;
    int marked = 0;
    if (ring && line) {
        int must = s->must;
        s->must = 0;
        if (s->depth > FLIP_DEPTH) {
            if (busy_has(ring, key)) {
                if (!must) {
                    s->depth -= n > 1;
                    s->radix = radix;
                    return 2;
                }
                while (busy_has(ring, key)) fiber_yield(s);
                if (recall(s, line, key, out)) {
                    s->depth -= n > 1;
                    s->radix = radix;
                    return 1;
                }
            }
            busy_add(ring, key);
            marked = 1;
        }
    }
#endif
    uint64_t deferred = 0; /* moves into positions another fiber was searching */
    for (int k = 0, pass = 0; k < n || (pass == 0 && deferred); k++) {
        if (k == n) {
            pass = 1;
            k = -1;
            continue;
        }
        if (pass && !(deferred >> k & 1)) continue;
        if (pass) s->must = 1;
        int t = mv[k].tile & 31;
        uint32_t lb = 1u << t, nh = h ^ lb, nu = u ^ lb, nb = mv[k].board;
        s->hands[p] = nh;
        s->hp[p] = pt - s->pips[t];
        int r = 1;
        if (!nh) {
            int pts = 0;
            for (int w = 0; w < s->seats; w++)
                if (s->losers[p] >> w & 1) pts += s->hp[w];
            memset(vec, 0, sizeof vec);
            vec[mine] = (int16_t)(s->fives ? s->round5[pts] : pts);
        } else if (pos >= s->nstock && !(nu & fit_of(s, nb))) {
            uint32_t nd = s->stock_at[t] >= 0 ? drawers & ~(s->dmask << (s->dbits * s->stock_at[t])) : drawers;
            r = block_value(s, nu, nd, vec) < 0 ? -1 : 1;
        } else {
            /* Who drew a tile matters only while it is held: the key stays canonical. */
            uint32_t nd = s->stock_at[t] >= 0 ? drawers & ~(s->dmask << (s->dbits * s->stock_at[t])) : drawers;
            r = mx(s, nu, nd, nb, q, pos, p, child_limit, vec);
        }
        s->must = 0;
        s->hands[p] = h;
        s->hp[p] = pt;
        if (r < 0) return -1;
        if (r == 2) { /* another fiber is searching where this move leads: later */
            if (n == 1) return 2; /* a forced move: its parent may try others first */
            if (pass) k--; /* not met: a deferred move's position is waited for */
            else deferred |= 1ull << k;
            continue;
        }
        if (r == 0) continue; /* worse for this seat than its best so far */
        vec[mine] = (int16_t)(vec[mine] + mv[k].gain);
        if (!have || better(vec, best, mine, s->sides)) {
            memcpy(best, vec, sizeof best);
            have = 1;
            if (single) {
                int own = best[mine], top = best[0];
                for (int w = 1; w < s->sides; w++)
                    if (best[w] > top) top = best[w];
                if (prune && (own > 0 ? -own : top) < limit) {
                    s->depth -= n > 1;
                    s->radix = radix;
#if HAVE_FIBERS
                    if (marked) busy_del(ring, key);
#endif
                    return 0;
                }
                if (own > 0 && own >= ceiling) break; /* the most there is */
                child_limit = own > 0 ? own : -top;
            }
        }
    }
    s->depth -= n > 1;
    s->radix = radix;
    if (line) store(s, line, key, best);
#if HAVE_FIBERS
    if (marked) busy_del(ring, key);
#endif
    memcpy(out, best, sizeof best);
    return 1;
}

/* --- two sides: alpha-beta on the margin ------------------------------------------
 *
 * The same search as ``solver.py``'s Python ``ab``: the future margin (this side's
 * points minus the other's) for the side of the seat to move, fail-soft, with a table
 * of bounds. An entry's ``v`` holds the lower and upper bound, the best move found
 * (tile | end << 5) and, with Fives and a stock, who drew what (the key's extra part).
 * Bounds may be dropped at any time: that costs time, never exactness. */

#define AB_INF 30000

static inline Entry *lookup_ab(Entry *e, uint64_t key, uint16_t extra) {
    for (int w = 0; w < WAYS; w++)
        if (e[w].key == key && (uint16_t)e[w].v[3] == extra) return e + w;
    return NULL;
}

/* Into the position's own slot if it is kept, else as ``store`` does. */
static void store_ab(Search *s, Entry *e, uint64_t key, uint16_t extra, int lo, int hi,
                     int best) {
    int16_t v[4] = {(int16_t)lo, (int16_t)hi, (int16_t)best, (int16_t)extra};
    Entry *hit = lookup_ab(e, key, extra);
    if (hit) memcpy(hit->v, v, sizeof v);
    else store(s, e, key, v);
}

static inline int out_points(const Search *s, int p) {
    int pts = 0;
    for (int w = 0; w < s->seats; w++)
        if (s->losers[p] >> w & 1) pts += s->hp[w];
    return s->fives ? s->round5[pts] : pts;
}

/* A blocked position's margin for ``mine``; sets ``error`` on a Python error. */
static int block_margin(Search *s, uint32_t u, uint32_t drawers, int mine) {
    int16_t vec[4];
    if (block_value(s, u, drawers, vec) < 0) {
        s->error = 1;
        return 0;
    }
    return vec[mine] - vec[1 - mine];
}

/* Without Fives a side can win at most the pips the others hold and what is left to
 * draw (``solver.py``'s bounds). 1 when that already decides the window. */
static inline int pip_bounds(const Search *s, int p, int pos, int *alpha, int *beta, int *v) {
    int mine = s->side[p];
    int more = s->stock_rest[pos];
    int sp[2] = {0, 0};
    for (int k = 0; k < s->seats; k++) sp[s->side[k]] += s->hp[k];
    int up, down;
    if (s->counts_partner) {
        int total = sp[0] + sp[1] + more, own = AB_INF, opp = AB_INF;
        for (int k = 0; k < s->seats; k++) {
            if (s->side[k] == mine) own = s->hp[k] < own ? s->hp[k] : own;
            else opp = s->hp[k] < opp ? s->hp[k] : opp;
        }
        up = total - own;
        down = total - opp;
    } else {
        up = sp[1 - mine] + more;
        down = sp[mine] + more;
    }
    if (up <= *alpha) return *v = up, 1;
    if (-down >= *beta) return *v = -down, 1;
    if (up < *beta) *beta = up;
    if (-down > *alpha) *alpha = -down;
    return 0;
}


static int ab(Search *s, uint32_t u, uint32_t drawers, uint32_t b, int p, int pos, int alpha,
              int beta) {
    if (count_node(s) < 0) return 0;
    uint32_t fm = fit_of(s, b);
    uint32_t h = s->hands[p];
    uint32_t fit = h & fm;
    int mine = s->side[p];
    if (!fit) {
        if (pos < s->nstock) { /* a forced draw: the stock's next tile */
            int t = s->stock[pos];
            uint32_t lb = 1u << t, nu = u | lb;
            uint32_t nd = drawers | (uint32_t)p << (s->dbits * pos);
            s->hands[p] = h | lb;
            s->hp[p] += s->pips[t];
            int v = pos + 1 == s->nstock && !(nu & fm) ? block_margin(s, nu, nd, mine)
                                                       : ab(s, nu, nd, b, p, pos + 1, alpha, beta);
            s->hands[p] = h;
            s->hp[p] -= s->pips[t];
            return v;
        }
        return -ab(s, u, drawers, b, (p + 1) % s->seats, pos, -beta, -alpha); /* a pass */
    }
    int v;
    if (!s->fives && pip_bounds(s, p, pos, &alpha, &beta, &v)) return v;
    uint64_t key = key_of(s, u, drawers, b, p, pos);
    uint16_t extra = s->fives ? (uint16_t)drawers : 0;
    Entry *line = bucket(s, key);
    int lo = -AB_INF, hi = AB_INF, first = -1;
    Entry *hit = lookup_ab(line, key, extra);
    if (hit) {
        lo = hit->v[0];
        hi = hit->v[1];
        first = hit->v[2];
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int a0 = alpha, b0 = beta;
    int q = (p + 1) % s->seats;
    MoveT mv[MAX_MOVES];
    int n = gen_moves(s, u, drawers, b, fit, q, pos, first, 1, mv);
    v = -AB_INF;
    int best = -1, pt = s->hp[p];
    for (int k = 0; k < n; k++) {
        int t = mv[k].tile & 31, gain = mv[k].gain;
        uint32_t lb = 1u << t, nh = h ^ lb, nu = u ^ lb, nb = mv[k].board;
        uint32_t nd = s->stock_at[t] >= 0
            ? drawers & ~(s->dmask << (s->dbits * s->stock_at[t])) : drawers;
        s->hands[p] = nh;
        s->hp[p] = pt - s->pips[t];
        int c;
        if (!nh) c = gain + out_points(s, p);
        else if (pos >= s->nstock && !(nu & fit_of(s, nb))) c = gain + block_margin(s, nu, nd, mine);
        else c = gain - ab(s, nu, nd, nb, q, pos, gain - beta, gain - alpha);
        s->hands[p] = h;
        s->hp[p] = pt;
        if (s->error) return 0;
        if (c > v) {
            v = c;
            best = mv[k].tile;
            if (v > alpha) {
                alpha = v;
                if (alpha >= beta) break;
            }
        }
    }
    if (n > 1) { /* a forced move is its child's value: nothing to keep */
        if (v <= a0) store_ab(s, line, key, extra, lo, v, best);
        else if (v >= b0) store_ab(s, line, key, extra, v, hi, best);
        else store_ab(s, line, key, extra, v, v, best);
    }
    return v;
}

/* MTD(f): null-window tests "value >= b" until the bounds meet; while only one bound is
 * known the step doubles, then the interval is halved (as ``DealSolver.margin``). Within
 * the window (alpha, beta) only: a value outside it is answered by the first bound that
 * proves so (at most alpha, or at least beta), not searched down to exact (a root whose
 * children matter only when they beat the best so far asks this way). */
static int mtdf(Search *s, uint32_t u, uint32_t drawers, uint32_t b, int p, int pos, int guess,
                int alpha, int beta, int *out) {
    int lo = -AB_INF, hi = AB_INF, g = guess, step = 1;
    while (lo < hi) {
        if (alpha > -AB_INF && hi <= alpha) {
            *out = hi;
            return 0;
        }
        if (beta < AB_INF && lo >= beta) break;
        int r = ab(s, u, drawers, b, p, pos, g - 1, g);
        if (s->error) return -1;
        if (r >= g) lo = r;
        else hi = r;
        if (lo == -AB_INF) {
            g = hi - step + 1;
            step *= 2;
        } else if (hi == AB_INF) {
            g = lo + step;
            step *= 2;
        } else {
            g = (lo + hi + 1) >> 1; /* floor, as Python's // */
        }
    }
    *out = lo;
    return 0;
}

/* --- the Python type ----------------------------------------------------------- */

static int read_ints(PyObject *seq, int *dst, Py_ssize_t most, const char *what, Py_ssize_t *len) {
    PyObject *f = PySequence_Fast(seq, what);
    if (f == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(f);
    if (n > most) {
        Py_DECREF(f);
        PyErr_Format(PyExc_ValueError, "%s: at most %zd numbers", what, most);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long x = PyLong_AsLong(PySequence_Fast_GET_ITEM(f, i));
        if (x == -1 && PyErr_Occurred()) {
            Py_DECREF(f);
            return -1;
        }
        dst[i] = (int)x;
    }
    Py_DECREF(f);
    if (len) *len = n;
    return 0;
}

/* The table's memory: fresh zero pages from the system, so that a deal that keeps few
 * positions costs little, and huge pages where the system gives them (every probe lands
 * on a random page; with 4 KiB pages most of them would also miss the TLB). */
static int take_table(Search *self, size_t bytes) {
#ifdef __linux__
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        PyErr_NoMemory();
        return -1;
    }
#ifdef MADV_HUGEPAGE
    madvise(mem, bytes, MADV_HUGEPAGE);
#endif
#else
    void *mem = calloc(1, bytes);
    if (mem == NULL) {
        PyErr_NoMemory();
        return -1;
    }
#endif
    self->table = mem;
    self->table_bytes = bytes;
    return 0;
}

static void release_table(Search *self) {
    if (self->table == NULL) return;
#ifdef __linux__
    munmap(self->table, self->table_bytes);
#else
    free(self->table);
#endif
    self->table = NULL;
}

static void Search_dealloc(Search *self) {
    Py_XDECREF(self->block);
    release_table(self);
    PyMem_Free(self->blocked);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ``stock[:nst]`` read in: where each tile lies in it and the pips from each place on. */
static int set_stock(Search *self, Py_ssize_t nst) {
    self->nstock = (int)nst;
    self->stock_rest[nst] = 0;
    for (int t = 0; t < NT; t++) self->stock_at[t] = -1;
    for (Py_ssize_t k = 0; k < nst; k++) {
        if (self->stock[k] < 0 || self->stock[k] >= NT) {
            PyErr_SetString(PyExc_ValueError, "a stock tile is a tile index");
            return -1;
        }
        self->stock_at[self->stock[k]] = (int)k;
    }
    for (Py_ssize_t k = nst - 1; k >= 0; k--)
        self->stock_rest[k] = self->stock_rest[k + 1] + self->pips[self->stock[k]];
    return 0;
}

static int Search_init(Search *self, PyObject *args, PyObject *kw) {
    static char *names[] = {"side", "losers", "fives", "high", "low", "pips", "suits",
                            "stock", "round5", "block", "capacity", "counts_partner", "block_kind", "leader", "threads",
                            "fibers", NULL};
    PyObject *side, *losers, *high, *low, *pips, *suits, *stock, *round5, *block;
    int fives, counts_partner = 0, block_kind = 0, leader = 0, threads = 1, fibers = 1;
    unsigned long long capacity;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOpOOOOOOOK|piiii", names, &side, &losers, &fives,
                                     &high, &low, &pips, &suits, &stock, &round5, &block,
                                     &capacity, &counts_partner, &block_kind, &leader,
                                     &threads, &fibers))
        return -1;
    Py_ssize_t seats, n, nst, nr;
    int suit_i[8] = {0};
    if (read_ints(side, self->side, 4, "side", &seats) < 0 ||
        read_ints(losers, self->losers, 4, "losers", &n) < 0 ||
        read_ints(high, self->hi, NT, "high", NULL) < 0 ||
        read_ints(low, self->lo, NT, "low", NULL) < 0 ||
        read_ints(pips, self->pips, NT, "pips", NULL) < 0 ||
        read_ints(suits, suit_i, 7, "suits", NULL) < 0 ||
        read_ints(stock, self->stock, NT, "stock", &nst) < 0 ||
        read_ints(round5, self->round5, 1024, "round5", &nr) < 0)
        return -1;
    if (seats < 2 || n != seats || !PyCallable_Check(block)) {
        PyErr_SetString(PyExc_ValueError, "one side and one loser mask per seat, a callable block");
        return -1;
    }
    self->seats = (int)seats;
    self->sides = 0;
    for (int k = 0; k < seats; k++)
        if (self->side[k] + 1 > self->sides) self->sides = self->side[k] + 1;
    self->fives = fives;
    self->counts_partner = counts_partner;
    if (block_kind < BLOCK_HOOK || block_kind > BLOCK_SELMINHA || leader < 0 || leader >= seats) {
        PyErr_SetString(PyExc_ValueError, "an unknown block rule, or a leader who is no seat");
        return -1;
    }
    self->block_kind = block_kind;
    self->threads = threads < 1 ? 1 : threads > 2 ? 2 : threads;
    self->threaded = self->flip = self->depth = 0;
    self->stop = NULL;
    self->fibers = fibers < 1 ? 1 : fibers > 16 ? 16 : fibers;
    self->code = 0;
    self->radix = 1;
    self->must = 0;
    self->fib = NULL;
    self->fibered = 0;
    self->leader = leader;
    self->dbits = seats <= 2 ? 1 : 2;
    self->dmask = (1u << self->dbits) - 1;
    if (self->sides == 2)
        for (int k = 0; k < seats; k++)
            if (self->side[(k + 1) % seats] == self->side[k]) {
                PyErr_SetString(PyExc_ValueError, "two sides take turns: the margin flips sign");
                return -1;
            }
    for (int k = 0; k < 7; k++) self->suit[k] = (uint32_t)suit_i[k];
    self->suit[7] = 0;
    if (set_stock(self, nst) < 0) return -1;
    Py_INCREF(block);
    Py_XSETREF(self->block, block);
    if (!fives && 41 + self->dbits * nst > 63) {
        PyErr_SetString(PyExc_ValueError, "this stock does not fit the key");
        return -1;
    }
    if (fives && nst && (self->sides != 2 || self->dbits * nst > 16)) {
        PyErr_SetString(PyExc_ValueError, "Fives with a stock fits the key with two seats only");
        return -1;
    }
    uint64_t size = WAYS;
    while (size < capacity) size <<= 1;
    release_table(self);
    if (take_table(self, size * sizeof(Entry)) < 0) return -1;
    PyMem_Free(self->blocked);
    self->blocked = PyMem_Calloc(BLOCK_SLOTS, sizeof(Entry));
    if (self->blocked == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    self->mask = size - 1;
    /* Compact entries where the check fits 32 bits: 2^21 lines (16 MiB) or more. */
    self->compact = fives && nst == 0 && self->sides > 2 && size >= (1u << 23);
    self->cmask = size / WAYS - 1;
    self->cshift = __builtin_ctzll(size / WAYS);
    self->stored = self->nodes = 0;
    return 0;
}

/* The hands of a position into the search; ``u`` the tiles held. */
static int load(Search *self, PyObject *hands, int p, int pos, uint32_t *u) {
    int h[4] = {0, 0, 0, 0};
    Py_ssize_t n;
    if (read_ints(hands, h, 4, "hands", &n) < 0) return -1;
    if (n != self->seats || p < 0 || p >= self->seats || pos < 0 || pos > self->nstock) {
        PyErr_SetString(PyExc_ValueError, "one hand per seat, a seat to move, a stock position");
        return -1;
    }
    *u = 0;
    for (int k = 0; k < 4; k++) {
        self->hands[k] = (uint32_t)h[k];
        *u |= (uint32_t)h[k];
        self->hp[k] = 0;
        for (int t = 0; t < NT; t++)
            if (h[k] >> t & 1) self->hp[k] += self->pips[t];
    }
    self->error = 0;
    return 0;
}

static PyObject *Search_margin(Search *self, PyObject *args) {
    PyObject *hands;
    unsigned int board, drawers;
    int p, pos, guess;
    unsigned long long most = 0;
    int alpha = -AB_INF, beta = AB_INF;
    if (!PyArg_ParseTuple(args, "OIIiii|Kii", &hands, &board, &drawers, &p, &pos, &guess, &most,
                          &alpha, &beta))
        return NULL;
    uint32_t u;
    if (load(self, hands, p, pos, &u) < 0) return NULL;
    if (self->sides != 2) {
        PyErr_SetString(PyExc_ValueError, "max-n: ask solve(), not margin()");
        return NULL;
    }
    if (guess <= -AB_INF || guess >= AB_INF) guess = 0;
    self->node_limit = most ? self->nodes + most : 0;
    int m;
    if (mtdf(self, u, drawers, canonical(board, self->fives), p, pos, guess, alpha, beta, &m) < 0)
        return NULL;
    return PyLong_FromLong(m);
}

/* --- two threads on one position ---------------------------------------------------
 *
 * Both search the whole position, sharing the table: one tries the moves of its first
 * few branchings in the usual order, the other last-first, so each mostly works where
 * the other has not been yet and takes over what the other has kept. The first to
 * finish has the exact value (max-n's choice does not depend on the order moves are
 * tried) and stops the other. Only for tables whose block rule is written in C: a
 * thread never calls Python. */

#define PARALLEL_HELD 14 /* smaller positions: starting a thread costs more than it saves */

/* --- fibers: several searches of one position on one thread -------------------------
 *
 * Why: a large max-n search (4-seat Fives) spends most of its time waiting for the
 * table's memory, about once for each position it searches (its line is asked for by
 * its parent, but the first child is looked up at once). A thread that runs several
 * searches of the same position, each with its own order of the first branchings' moves
 * (``code``), switches to the next at every such look-up: its line comes while the
 * others work, so the waits overlap. They share the table as two threads do: each
 * takes over what the others have kept. The first to finish has the exact value
 * (max-n's choice does not depend on the order moves are tried); the others are left
 * where they are, holding nothing. Only for the compact table (Fives each for himself,
 * no stock), whose entries are single words, and with the block rule in C: a fiber
 * never calls Python, and never holds a line's lock when it switches.
 *
 * The switch is a few instructions (x86-64 only; elsewhere one search per thread). */
#if HAVE_FIBERS
#define FIBER_STACK (1u << 20) /* a deal recurses at most ~120 deep (plays, passes), ~2 KiB each */
#define SIGNAL_EVERY 4096      /* switches between looks at Python's signals (one thread) */

void maxn_switch(void **save, void *to);
__asm__(".text\n"
        ".globl maxn_switch\n"
        ".hidden maxn_switch\n"
        ".type maxn_switch,@function\n"
        "maxn_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size maxn_switch, .-maxn_switch\n");

static __thread Fiber *fiber_starting;

static void fiber_yield(Search *s) {
    Fiber *me = s->fib;
    Ring *ring = me->ring;
    if (ring->signals && ++ring->switches % SIGNAL_EVERY == 0) {
        ring->resume = me->next;
        maxn_switch(&me->sp, ring->main_sp);
    } else {
        maxn_switch(&me->sp, me->next->sp);
    }
}

static void __attribute__((noreturn, used)) fiber_main(void) {
    Fiber *f = fiber_starting;
    maxn_switch(&f->sp, f->ring->main_sp); /* ready: back until the ring starts */
    f->r = mx(f->s, f->u, f->drawers, f->b, f->p, f->pos, -1, NEG_INF, f->out);
    f->ring->ended = f;
    maxn_switch(&f->sp, f->ring->main_sp); /* never resumed */
    __builtin_unreachable();
}

/* ``count`` searches of the position on this thread, ``s`` the first; 1 with ``out``
 * the value, -1 with ``s->error`` set (2: past the visit limit, 3: stopped, 4: no
 * memory). ``threaded``: another thread works too (``s->stop`` is shared). */
static int run_fibers(Search *s, int count, uint32_t u, uint32_t drawers, uint32_t b, int p,
                      int pos, int threaded, int16_t *out) {
    int stop_here = 0;
    Fiber *fs = calloc((size_t)count, sizeof *fs);
    Search *copies = calloc((size_t)count, sizeof *copies);
    int ok = fs != NULL && copies != NULL;
    for (int i = 0; ok && i < count; i++) {
        fs[i].stack = mmap(NULL, FIBER_STACK, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (fs[i].stack == MAP_FAILED) {
            fs[i].stack = NULL;
            ok = 0;
        }
    }
    Ring ring = {NULL, NULL, NULL, 0, !threaded};
    int r = -1;
    if (ok) {
        if (!threaded) s->stop = &stop_here;
        for (int i = 0; i < count; i++) {
            Search *c = i == 0 ? s : &copies[i];
            if (i) {
                memcpy(c, s, sizeof *c);
                c->nodes = c->stored = c->blocks = 0;
                c->node_limit = s->node_limit ? s->node_limit - s->nodes : 0;
            }
            c->threaded = 1; /* no Python: the compact table needs no lock */
            c->code = i;
            c->radix = 1;
            c->depth = 0;
            c->must = 0; /* a search left on a fiber last time may have left it set */
            c->fib = &fs[i];
            fs[i] = (Fiber){NULL, &fs[(i + 1) % count], &ring, c, u, drawers, b, p, pos, 0,
                            {0}, fs[i].stack};
            /* A fresh stack: six registers, then fiber_main as if called (16-aligned). */
            void **top = (void **)(fs[i].stack + FIBER_STACK);
            *--top = NULL;                     /* fiber_main's return: never taken */
            *--top = (void *)fiber_main;
            for (int k = 0; k < 6; k++) *--top = NULL;
            fs[i].sp = top;
            fiber_starting = &fs[i];
            maxn_switch(&ring.main_sp, fs[i].sp);
        }
        Fiber *go = &fs[0];
        for (;;) {
            maxn_switch(&ring.main_sp, go->sp);
            if (ring.ended) break;
            /* Back for a look at the signals: a KeyboardInterrupt stops every fiber. */
            if (PyErr_CheckSignals() < 0) stop_here = 2;
            go = ring.resume;
        }
        Fiber *e = ring.ended;
        r = e->r;
        s->fibered += r > 0;
        if (r > 0) memcpy(out, e->out, sizeof e->out);
        else if (e->s->error != 3 || stop_here != 2) s->error = e->s->error;
        else s->error = 1; /* the signal's exception is set */
        if (r > 0 && threaded) __atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
        for (int i = 1; i < count; i++) {
            s->nodes += copies[i].nodes;
            s->stored += copies[i].stored;
            s->blocks += copies[i].blocks;
        }
        if (!threaded) s->stop = NULL;
    } else {
        s->error = 4;
    }
    s->fib = NULL;
    s->code = 0;
    s->must = 0;
    s->threaded = threaded;
    for (int i = 0; fs != NULL && i < count; i++)
        if (fs[i].stack != NULL) munmap(fs[i].stack, FIBER_STACK);
    free(fs);
    free(copies);
    return r;
}
#endif


/* Why a search on threads or fibers stopped without a value, as the exception (``error``
 * as in ``Search``; one already set, a signal's, stands): -1. */
static int say_stopped(int error) {
    if (error == 2) PyErr_SetString(TooLong, "the search reached its limit of positions visited");
    else if (error == 4) PyErr_NoMemory();
    else if (!PyErr_Occurred())
        PyErr_SetString(PyExc_RuntimeError, "the search stopped without a value");
    return -1;
}

typedef struct {
    Search *s;
    uint32_t u, drawers, b;
    int p, pos, r;
    int16_t out[4];
} Job;

/* Fibers for this position: the compact table, the block rule in C, a large position. */
static int use_fibers(const Search *s, uint32_t u) {
    return HAVE_FIBERS && s->fibers > 1 && s->compact && s->block_kind != BLOCK_HOOK &&
        __builtin_popcount(u) >= PARALLEL_HELD;
}

static void *run_job(void *arg) {
    Job *j = arg;
#if HAVE_FIBERS
    if (use_fibers(j->s, j->u)) {
        j->r = run_fibers(j->s, j->s->fibers, j->u, j->drawers, j->b, j->p, j->pos, 1, j->out);
        return NULL;
    }
#endif
    j->r = mx(j->s, j->u, j->drawers, j->b, j->p, j->pos, -1, NEG_INF, j->out);
    if (j->r > 0) __atomic_store_n(j->s->stop, 1, __ATOMIC_RELAXED);
    return NULL;
}

static int solve_two(Search *self, uint32_t u, uint32_t drawers, uint32_t b, int p, int pos,
                     unsigned long long most, int16_t *out) {
    Search *other = PyMem_Malloc(sizeof *other);
    Entry *blocked = PyMem_Calloc(BLOCK_SLOTS, sizeof(Entry));
    if (other == NULL || blocked == NULL) {
        PyMem_Free(other);
        PyMem_Free(blocked);
        PyErr_NoMemory();
        return -1;
    }
    int stop = 0;
    memcpy(other, self, sizeof *other);
    other->blocked = blocked;
    other->nodes = other->stored = other->blocks = other->fibered = 0;
    other->node_limit = most;
    other->flip = 1;
    self->flip = 0;
    self->stop = other->stop = &stop;
    self->threaded = other->threaded = 1;
    Job a = {self, u, drawers, b, p, pos, 0, {0}};
    Job c = {other, u, drawers, b, p, pos, 0, {0}};
    pthread_t th;
    int started;
    Py_BEGIN_ALLOW_THREADS
    started = pthread_create(&th, NULL, run_job, &c) == 0;
    run_job(&a);
    if (started) pthread_join(th, NULL);
    Py_END_ALLOW_THREADS
    self->threaded = 0;
    self->stop = NULL;
    self->nodes += other->nodes;
    self->stored += other->stored;
    self->blocks += other->blocks;
    self->fibered += other->fibered;
    Job *done = a.r > 0 ? &a : started && c.r > 0 ? &c : NULL;
    int too_long = self->error == 2 || (started && other->error == 2);
    int no_memory = self->error == 4 || (started && other->error == 4);
    PyMem_Free(other);
    PyMem_Free(blocked);
    if (done != NULL) {
        memcpy(out, done->out, sizeof done->out);
        return 1;
    }
    return say_stopped(too_long ? 2 : no_memory ? 4 : 3);
}

static PyObject *Search_solve(Search *self, PyObject *args) {
    PyObject *hands;
    unsigned int board, drawers;
    int p, pos;
    unsigned long long most = 0;
    if (!PyArg_ParseTuple(args, "OIIii|K", &hands, &board, &drawers, &p, &pos, &most))
        return NULL;
    uint32_t u;
    if (load(self, hands, p, pos, &u) < 0) return NULL;
    if (self->sides == 2) {
        PyErr_SetString(PyExc_ValueError, "two sides: ask margin(), not solve()");
        return NULL;
    }
    int16_t out[4];
    self->node_limit = most ? self->nodes + most : 0;
    self->depth = 0;
    uint32_t b = canonical(board, self->fives);
    self->error = 0;
    int r;
    if (self->threads > 1 && self->block_kind != BLOCK_HOOK &&
        __builtin_popcount(u) >= PARALLEL_HELD)
        r = solve_two(self, u, drawers, b, p, pos, most, out);
#if HAVE_FIBERS
    else if (use_fibers(self, u)) {
        r = run_fibers(self, self->fibers, u, drawers, b, p, pos, 0, out);
        if (r < 0) say_stopped(self->error);
    }
#endif
    else r = mx(self, u, drawers, b, p, pos, -1, NEG_INF, out);
    if (r < 0) return NULL;
    PyObject *tup = PyTuple_New(self->sides);
    if (tup == NULL) return NULL;
    for (int k = 0; k < self->sides; k++) PyTuple_SET_ITEM(tup, k, PyLong_FromLong(out[k]));
    return tup;
}

/* The block value of the hands given (the tests compare it with the rules' hook). */
static PyObject *Search_block(Search *self, PyObject *args) {
    PyObject *hands;
    if (!PyArg_ParseTuple(args, "O", &hands)) return NULL;
    uint32_t u;
    if (load(self, hands, 0, 0, &u) < 0) return NULL;
    int16_t out[4];
    memset(self->blocked, 0, BLOCK_SLOTS * sizeof(Entry));
    if (block_value(self, u, 0, out) < 0) return NULL;
    memset(self->blocked, 0, BLOCK_SLOTS * sizeof(Entry));
    PyObject *tup = PyTuple_New(self->sides);
    if (tup == NULL) return NULL;
    for (int k = 0; k < self->sides; k++) PyTuple_SET_ITEM(tup, k, PyLong_FromLong(out[k]));
    return tup;
}

static PyObject *Search_place(Search *self, PyObject *args) {
    unsigned int board;
    int t, end;
    if (!PyArg_ParseTuple(args, "Iii", &board, &t, &end)) return NULL;
    if (t < 0 || t >= NT || end < 0 || end > 3) {
        PyErr_SetString(PyExc_ValueError, "a tile index and an end");
        return NULL;
    }
    uint32_t nb = place(self, board, t, end);
    int count = 0; /* as the search makes its moves */
    uint32_t code = self->fives ? canonical_count(nb, &count) : canonical(nb, 0);
    return Py_BuildValue("Ii", code, count);
}

/* Another deal of the same table: its stock, block hook and leader; nothing kept. A
 * search set up once serves many small solves (what each costs is its own search). */
static PyObject *Search_reset(Search *self, PyObject *args) {
    PyObject *stock, *block;
    int leader;
    if (!PyArg_ParseTuple(args, "OOi", &stock, &block, &leader)) return NULL;
    int kept[NT];
    memcpy(kept, self->stock, sizeof kept);
    int old_n = self->nstock;
    Py_ssize_t nst;
    if (read_ints(stock, self->stock, NT, "stock", &nst) < 0 || nst != old_n ||
        leader < 0 || leader >= self->seats || !PyCallable_Check(block)) {
        memcpy(self->stock, kept, sizeof kept);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a stock as long as before, a callable, a seat");
        return NULL;
    }
    if (set_stock(self, nst) < 0) return NULL;
    Py_INCREF(block);
    Py_XSETREF(self->block, block);
    self->leader = leader;
    memset(self->table, 0, (self->mask + 1) * sizeof(Entry));
    memset(self->blocked, 0, BLOCK_SLOTS * sizeof(Entry));
    self->stored = self->nodes = self->blocks = 0;
    Py_RETURN_NONE;
}

static PyObject *Search_clear(Search *self, PyObject *unused) {
    memset(self->table, 0, (self->mask + 1) * sizeof(Entry));
    self->stored = 0;
    Py_RETURN_NONE;
}

static PyObject *Search_get_stored(Search *self, void *unused) {
    return PyLong_FromUnsignedLongLong(self->stored);
}

static PyObject *Search_get_nodes(Search *self, void *unused) {
    return PyLong_FromUnsignedLongLong(self->nodes);
}

static PyObject *Search_get_blocks(Search *self, void *unused) {
    return PyLong_FromUnsignedLongLong(self->blocks);
}

static PyObject *Search_get_fibered(Search *self, void *unused) {
    return PyLong_FromUnsignedLongLong(self->fibered);
}

static PyObject *Search_get_capacity(Search *self, void *unused) {
    return PyLong_FromUnsignedLongLong((self->mask + 1) << self->compact);
}

static PyMethodDef Search_methods[] = {
    {"solve", (PyCFunction)Search_solve, METH_VARARGS,
     "solve(hands, board, drawers, seat, stock_pos, most=0) -> future points per side;\n"
     "TooLong once more than ``most`` positions were visited (0: no limit)"},
    {"margin", (PyCFunction)Search_margin, METH_VARARGS,
     "margin(hands, board, drawers, seat, stock_pos, guess, most=0, alpha, beta) -> two sides:\n"
     "the future margin of the seat's side (exact inside (alpha, beta); outside, a bound that\n"
     "proves so); TooLong once more than ``most`` positions were visited"},
    {"block", (PyCFunction)Search_block, METH_VARARGS,
     "block(hands) -> points per side of a blocked deal with these hands"},
    {"place", (PyCFunction)Search_place, METH_VARARGS,
     "place(board, tile, end) -> (canonical board, Fives count)"},
    {"clear", (PyCFunction)Search_clear, METH_NOARGS, "forget every kept position"},
    {"reset", (PyCFunction)Search_reset, METH_VARARGS,
     "reset(stock, block, leader): another deal of the same table, nothing kept"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Search_getset[] = {
    {"stored", (getter)Search_get_stored, NULL, "positions kept", NULL},
    {"nodes", (getter)Search_get_nodes, NULL, "positions visited", NULL},
    {"blocks", (getter)Search_get_blocks, NULL, "blocked positions valued", NULL},
    {"capacity", (getter)Search_get_capacity, NULL, "most positions kept", NULL},
    {"fibered", (getter)Search_get_fibered, NULL, "solves worked out on fibers", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ledger.analysis._maxn.Search",
    .tp_basicsize = sizeof(Search),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Max-n search of one deal (see solver.py).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_maxn", "Max-n search of one deal, in C.", -1, NULL,
};

PyMODINIT_FUNC PyInit__maxn(void) {
    fill_open_bits();
    if (PyType_Ready(&SearchType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    TooLong = PyErr_NewException("ledger.analysis._maxn.TooLong", NULL, NULL);
    if (TooLong == NULL || PyModule_AddObject(m, "TooLong", TooLong) < 0) {
        Py_XDECREF(TooLong);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(TooLong);
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(m, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
