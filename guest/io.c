/* ktb-io: writes and verifies a deterministic block pattern (pattern.h) on a
 * disk or file, and reports throughput, latency, I/O errors and mismatches
 * as one JSON object. Exit 0 clean, 1 errors or mismatches, 2 usage. */
#include "disk.h"
#include "json_out.h"
#include "pattern.h"
#include "size.h"
#include "stats.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IO_ALIGN 4096
#define IO_MAX_LBAS 64
#define IO_MAX_BS (16u << 20)

enum io_op { IO_WRITE, IO_VERIFY, IO_RW };

static const char *const io_op_names[] = { "write", "verify", "rw" };

struct io_opts {
	enum io_op op;
	const char *disk_id, *dev, *report, *until;
	uint64_t seed, size, offset, bs, gen, passes, corrupt_lba;
	bool rand, direct, background, fsync, has_corrupt;
};

struct io_stats {
	uint64_t ios, bytes, io_errors, mismatches;
	uint64_t kinds[PATTERN_NR_VERDICTS];
	uint64_t lbas[IO_MAX_LBAS];
	unsigned nlbas;
	char first_error[160];	    /* "EINVAL: Invalid argument" */
	const char *first_error_op; /* write, read, short write, fsync, ... */
	int64_t first_error_lba;
	uint64_t *lat; /* microseconds, one per I/O; NULL if unaffordable */
	size_t nlat, cap;
	int64_t elapsed_ns;
	int64_t t_start;     /* when the run began */
	int64_t stall_ns;    /* the longest single I/O, however many were timed */
	int64_t stall_at_ns; /* when it began, from t_start */
};

struct io_ctx {
	struct io_opts *o;
	struct io_stats st;
	char dev[64 + 4096];
	int fd;
	bool direct;
	const char *note;
	uint64_t nblocks;
	uint64_t *order; /* block visiting order; NULL for sequential */
	void *buf;
};

static int64_t io_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void io_usage(FILE *f)
{
	fprintf(f, "usage: ktb-io write|verify|rw --disk ID|--dev PATH [--seed N] [--size SIZE]\n"
		   "       [--offset SIZE] [--bs SIZE] [--mode seq|rand] [--direct|--buffered]\n"
		   "       [--gen N] [--passes N] [--until FILE] [--fsync] [--corrupt LBA]\n"
		   "       [--background --report FILE]\n"
		   "LBAs are byte offsets / 512 whatever the block size. --bs defaults to the\n"
		   "device's logical block size (at least 512); --size to the rest of the device.\n"
		   "--until FILE: keep making passes (at least --passes) until FILE exists.\n");
}

static int io_parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end,
		      (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10) /* never octal */;
	return (errno || end == s || *end || *s == '-') ? -EINVAL : 0;
}

static const struct option io_longopts[] = {
	{ "disk", required_argument, NULL, 'd' },    { "dev", required_argument, NULL, 'D' },
	{ "seed", required_argument, NULL, 's' },    { "size", required_argument, NULL, 'S' },
	{ "offset", required_argument, NULL, 'o' },  { "bs", required_argument, NULL, 'b' },
	{ "mode", required_argument, NULL, 'm' },    { "direct", no_argument, NULL, 'x' },
	{ "buffered", no_argument, NULL, 'B' },	     { "gen", required_argument, NULL, 'g' },
	{ "passes", required_argument, NULL, 'p' },  { "background", no_argument, NULL, 'k' },
	{ "report", required_argument, NULL, 'r' },  { "fsync", no_argument, NULL, 'f' },
	{ "corrupt", required_argument, NULL, 'c' }, { "until", required_argument, NULL, 'u' },
	{ "help", no_argument, NULL, 'h' },	     { NULL, 0, NULL, 0 },
};

static const char *io_opt_name(int c)
{
	const struct option *lo;

	for (lo = io_longopts; lo->name; lo++)
		if (lo->val == c)
			return lo->name;
	return "?";
}

/* One option; returns 0 or -EINVAL with a message printed. */
static int io_parse_opt(struct io_opts *o, int c, const char *arg)
{
	int ret = 0;

	switch (c) {
	case 'd':
		o->disk_id = arg;
		break;
	case 'D':
		o->dev = arg;
		break;
	case 's':
		ret = io_parse_u64(arg, &o->seed);
		break;
	case 'S':
		ret = size_parse(arg, &o->size);
		break;
	case 'o':
		ret = size_parse(arg, &o->offset);
		break;
	case 'b':
		ret = size_parse(arg, &o->bs);
		break;
	case 'x':
		o->direct = true;
		break;
	case 'B':
		o->direct = false;
		break;
	case 'g':
		ret = io_parse_u64(arg, &o->gen);
		break;
	case 'p':
		ret = io_parse_u64(arg, &o->passes);
		break;
	case 'k':
		o->background = true;
		break;
	case 'r':
		o->report = arg;
		break;
	case 'f':
		o->fsync = true;
		break;
	case 'u':
		o->until = arg;
		break;
	case 'c':
		ret = io_parse_u64(arg, &o->corrupt_lba);
		o->has_corrupt = true;
		break;
	case 'm':
		if (!strcmp(arg, "seq") || !strcmp(arg, "rand"))
			o->rand = !strcmp(arg, "rand");
		else
			ret = -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		fprintf(stderr, "ktb-io: bad value for --%s: %s\n", io_opt_name(c), arg);
	return ret;
}

static int io_parse_op(struct io_opts *o, const char *name)
{
	unsigned i;

	for (i = 0; i < sizeof(io_op_names) / sizeof(io_op_names[0]); i++) {
		if (!strcmp(name, io_op_names[i])) {
			o->op = (enum io_op)i;
			return 0;
		}
	}
	fprintf(stderr, "ktb-io: unknown operation '%s'\n", name);
	return -EINVAL;
}

/* Checks what can be checked before the device is opened. */
static int io_check_opts(const struct io_opts *o)
{
	if (!o->disk_id == !o->dev)
		fprintf(stderr, "ktb-io: give exactly one of --disk and --dev\n");
	else if (o->background && !o->report)
		fprintf(stderr, "ktb-io: --background needs --report FILE\n");
	else if (o->offset % PATTERN_SECTOR)
		fprintf(stderr, "ktb-io: --offset must be a multiple of 512\n");
	else if (o->bs && (o->bs < PATTERN_MIN_BS || o->bs % PATTERN_SECTOR || o->bs > IO_MAX_BS))
		fprintf(stderr, "ktb-io: --bs must be a multiple of 512 from 512 to 16M\n");
	else if (!o->passes)
		fprintf(stderr, "ktb-io: --passes must be at least 1\n");
	else
		return 0;
	return -EINVAL;
}

static int io_parse_args(struct io_opts *o, int argc, char **argv)
{
	int c;

	*o = (struct io_opts){ .seed = 1, .gen = 1, .passes = 1, .direct = true };
	if (argc < 2 || io_parse_op(o, argv[1]))
		return -EINVAL;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", io_longopts, NULL)) != -1) {
		if (c == 'h') {
			io_usage(stdout);
			exit(0);
		}
		if (io_parse_opt(o, c, optarg))
			return -EINVAL;
	}
	if (optind < argc) {
		fprintf(stderr, "ktb-io: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return io_check_opts(o);
}

/* A failure that stops the run before any I/O; reported as {"error": ...}. */
static int io_fail(struct io_ctx *c, int err, const char *what)
{
	snprintf(c->st.first_error, sizeof(c->st.first_error), "%s: %s: %s", what,
		 strerrorname_np(err) ? strerrorname_np(err) : "?", strerror(err));
	return -err;
}

static int io_resolve(struct io_ctx *c)
{
	struct disk_info d;
	int ret;

	if (c->o->dev) {
		snprintf(c->dev, sizeof(c->dev), "%s", c->o->dev);
		return 0;
	}
	ret = disk_find("", c->o->disk_id, &d);
	if (ret) {
		snprintf(c->st.first_error, sizeof(c->st.first_error), "no disk with id %s",
			 c->o->disk_id);
		return ret;
	}
	snprintf(c->dev, sizeof(c->dev), "%s", d.dev);
	return 0;
}

/* Some filesystems (tmpfs) refuse O_DIRECT at open with EINVAL; a file there
 * is still worth testing, buffered, and the report says so. */
static int io_open(struct io_ctx *c)
{
	int flags = O_CLOEXEC;

	flags |= (c->o->op == IO_VERIFY && !c->o->has_corrupt) ? O_RDONLY : O_RDWR;
	if (c->o->op != IO_VERIFY && access(c->dev, F_OK))
		flags |= O_CREAT;
	c->direct = c->o->direct;
	c->fd = open(c->dev, flags | (c->direct ? O_DIRECT : 0), 0644);
	if (c->fd < 0 && errno == EINVAL && c->direct) {
		c->direct = false;
		c->note = "O_DIRECT refused at open (EINVAL); buffered I/O used";
		c->fd = open(c->dev, flags, 0644);
	}
	if (c->fd < 0)
		return io_fail(c, errno, c->dev);
	return 0;
}

/* Block devices report their logical block size; files count as 512n. */
static int io_geometry(struct io_ctx *c, uint64_t *lbs, uint64_t *devsize)
{
	struct stat st;
	int ssz;

	if (fstat(c->fd, &st))
		return io_fail(c, errno, "fstat");
	*lbs = 512;
	*devsize = (uint64_t)st.st_size;
	if (!S_ISBLK(st.st_mode))
		return 0;
	if (ioctl(c->fd, BLKSSZGET, &ssz))
		return io_fail(c, errno, "BLKSSZGET");
	if (ioctl(c->fd, BLKGETSIZE64, devsize))
		return io_fail(c, errno, "BLKGETSIZE64");
	*lbs = ssz > 512 ? (uint64_t)ssz : 512;
	return 1;
}

static int io_bad(struct io_ctx *c, const char *msg)
{
	snprintf(c->st.first_error, sizeof(c->st.first_error), "%s", msg);
	return -EINVAL;
}

/* Fills in the defaults that depend on the device and checks the range. */
static int io_layout(struct io_ctx *c)
{
	struct io_opts *o = c->o;
	uint64_t lbs, devsize, corrupt_off;
	int blk;

	blk = io_geometry(c, &lbs, &devsize);
	if (blk < 0)
		return blk;
	if (!o->bs)
		o->bs = lbs;
	if (!o->size && devsize > o->offset)
		o->size = (devsize - o->offset) / o->bs * o->bs;
	if (!o->size)
		return io_bad(c, "nothing to do: give --size");
	if (o->size % o->bs)
		return io_bad(c, "--size must be a multiple of --bs");
	if (blk && o->offset + o->size > devsize)
		return io_bad(c, "--offset + --size runs past the end of the device");
	c->nblocks = o->size / o->bs;
	corrupt_off = o->corrupt_lba * PATTERN_SECTOR;
	if (o->has_corrupt && (corrupt_off < o->offset || corrupt_off >= o->offset + o->size ||
			       (corrupt_off - o->offset) % o->bs))
		return io_bad(c, "--corrupt LBA is not the start of a block in the range");
	return 0;
}

static int io_alloc(struct io_ctx *c)
{
	size_t buflen = (c->o->bs + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
	uint64_t per_pass = c->o->op == IO_RW ? 2 : 1;

	if (posix_memalign(&c->buf, IO_ALIGN, buflen))
		return io_fail(c, ENOMEM, "buffer");
	if (c->o->rand) {
		c->order = malloc(c->nblocks * sizeof(*c->order));
		if (!c->order)
			return io_fail(c, ENOMEM, "block order");
		pattern_permute(c->order, c->nblocks, c->o->seed);
	}
	/* latencies of the first 8M I/Os at most: 64 MiB is a lot in a guest */
	c->st.cap = c->nblocks * c->o->passes * per_pass;
	if (c->o->until)
		c->st.cap = 1u << 20; /* passes unknown: the first 1M I/Os */
	if (c->st.cap > (8u << 20))
		c->st.cap = 8u << 20;
	c->st.lat = malloc(c->st.cap * sizeof(*c->st.lat));
	if (!c->st.lat)
		c->st.cap = 0;
	c->st.first_error_lba = -1;
	return 0;
}

static void io_error(struct io_ctx *c, int err, int64_t lba, const char *what)
{
	c->st.io_errors++;
	if (c->st.first_error[0])
		return;
	snprintf(c->st.first_error, sizeof(c->st.first_error), "%s: %s",
		 strerrorname_np(err) ? strerrorname_np(err) : "?", strerror(err));
	c->st.first_error_op = what;
	c->st.first_error_lba = lba;
}

static void io_mismatch(struct io_ctx *c, enum pattern_verdict v, uint64_t lba)
{
	c->st.mismatches++;
	c->st.kinds[v]++;
	if (c->st.nlbas < IO_MAX_LBAS)
		c->st.lbas[c->st.nlbas++] = lba;
}

/* One timed pread/pwrite; returns bytes moved or -errno. */
static ssize_t io_xfer(struct io_ctx *c, bool write, uint64_t off)
{
	int64_t t0 = io_now_ns();
	int64_t lat;
	ssize_t n;

	if (write)
		n = pwrite(c->fd, c->buf, c->o->bs, (off_t)off);
	else
		n = pread(c->fd, c->buf, c->o->bs, (off_t)off);
	if (n < 0)
		n = -errno;
	lat = io_now_ns() - t0;
	if (lat > c->st.stall_ns) {
		c->st.stall_ns = lat;
		c->st.stall_at_ns = t0 - c->st.t_start;
	}
	if (c->st.nlat < c->st.cap)
		c->st.lat[c->st.nlat++] = (uint64_t)lat / 1000;
	c->st.ios++;
	if (n > 0)
		c->st.bytes += (uint64_t)n;
	return n;
}

static void io_write_block(struct io_ctx *c, uint64_t off, uint64_t lba)
{
	ssize_t n;

	pattern_fill(c->buf, (uint32_t)c->o->bs, c->o->seed, lba, c->o->gen);
	n = io_xfer(c, true, off);
	if (n < 0)
		io_error(c, (int)-n, (int64_t)lba, "write");
	else if ((uint64_t)n != c->o->bs)
		io_error(c, EIO, (int64_t)lba, "short write");
}

static void io_verify_block(struct io_ctx *c, uint64_t off, uint64_t lba)
{
	enum pattern_verdict v;
	ssize_t n;

	n = io_xfer(c, false, off);
	if (n < 0) {
		io_error(c, (int)-n, (int64_t)lba, "read");
		return;
	}
	if ((uint64_t)n != c->o->bs) {
		io_error(c, EIO, (int64_t)lba, "short read");
		return;
	}
	v = pattern_classify(c->buf, (uint32_t)c->o->bs, c->o->seed, lba, c->o->gen);
	if (v != PATTERN_OK)
		io_mismatch(c, v, lba);
}

static void io_phase(struct io_ctx *c, bool write)
{
	uint64_t i, blk, off;

	for (i = 0; i < c->nblocks; i++) {
		blk = c->order ? c->order[i] : i;
		off = c->o->offset + blk * c->o->bs;
		if (write)
			io_write_block(c, off, off / PATTERN_SECTOR);
		else
			io_verify_block(c, off, off / PATTERN_SECTOR);
	}
	if (write && c->o->fsync && fsync(c->fd))
		io_error(c, errno, -1, "fsync");
}

/* The --corrupt self-test: garbage where one block was, which verify must
 * report as bad_checksum. Not counted as I/O of the run. */
static void io_corrupt(struct io_ctx *c)
{
	uint64_t state = c->o->seed ^ 0xbadbadbadULL, w, i;
	uint64_t off = c->o->corrupt_lba * PATTERN_SECTOR;

	for (i = 0; i + 8 <= c->o->bs; i += 8) {
		w = pattern_rand(&state) | 1;
		memcpy((char *)c->buf + i, &w, 8);
	}
	errno = 0;
	if (pwrite(c->fd, c->buf, c->o->bs, (off_t)off) != (ssize_t)c->o->bs)
		io_error(c, errno ? errno : EIO, (int64_t)c->o->corrupt_lba, "corrupt");
	else if (c->o->fsync && fsync(c->fd))
		io_error(c, errno, -1, "fsync");
}

static void io_run(struct io_ctx *c)
{
	int64_t t0 = io_now_ns();
	uint64_t pass;

	c->st.t_start = t0;
	/* --until: passes go on until the file appears, checked between passes */
	for (pass = 0; pass < c->o->passes || (c->o->until && access(c->o->until, F_OK)); pass++) {
		if (c->o->op != IO_VERIFY)
			io_phase(c, true);
		if (pass == 0 && c->o->has_corrupt)
			io_corrupt(c);
		if (c->o->op != IO_WRITE)
			io_phase(c, false);
	}
	c->st.elapsed_ns = io_now_ns() - t0;
	c->o->passes = pass;
}

/* With several passes: each pass's median, and how many times faster the
 * last pass was than the first (a cache warming up shows here). Sorts each
 * pass's samples in place; the caller sorts them all afterwards. */
static void io_report_passes(struct io_ctx *c, struct json_out *j)
{
	struct io_stats *st = &c->st;
	size_t per = c->o->passes ? st->nlat / c->o->passes : 0;
	uint64_t first = 0, last = 0;

	if (c->o->passes < 2 || !per || !st->lat)
		return;
	json_key(j, "pass_p50_us");
	json_arr_begin(j);
	for (uint64_t p = 0; p < c->o->passes; p++) {
		stats_sort(st->lat + p * per, per);
		last = stats_percentile(st->lat + p * per, per, 50);
		if (!p)
			first = last;
		json_u64(j, last);
	}
	json_arr_end(j);
	json_kv_double(j, "p50_speedup", last ? (double)first / (double)last : 0);
}

static void io_report_lat(struct io_ctx *c, struct json_out *j)
{
	struct io_stats *st = &c->st;

	io_report_passes(c, j);
	stats_sort(st->lat, st->nlat);
	json_key(j, "lat_us");
	json_obj_begin(j);
	json_kv_u64(j, "p50", stats_percentile(st->lat, st->nlat, 50));
	json_kv_u64(j, "p90", stats_percentile(st->lat, st->nlat, 90));
	json_kv_u64(j, "p99", stats_percentile(st->lat, st->nlat, 99));
	json_kv_u64(j, "max", stats_percentile(st->lat, st->nlat, 100));
	json_obj_end(j);
}

static void io_report_mismatches(struct io_ctx *c, struct json_out *j)
{
	enum pattern_verdict v;
	unsigned i;

	json_kv_u64(j, "mismatches", c->st.mismatches);
	json_key(j, "mismatched_lbas");
	json_arr_begin(j);
	for (i = 0; i < c->st.nlbas; i++)
		json_u64(j, c->st.lbas[i]);
	json_arr_end(j);
	json_key(j, "mismatch_kinds");
	json_obj_begin(j);
	for (v = PATTERN_OK + 1; v < PATTERN_NR_VERDICTS; v++)
		json_kv_u64(j, pattern_verdict_name(v), c->st.kinds[v]);
	json_obj_end(j);
}

static void io_report(struct io_ctx *c, FILE *f)
{
	double secs = (double)c->st.elapsed_ns / 1e9;
	struct io_opts *o = c->o;
	struct json_out j;

	json_init(&j, f);
	json_obj_begin(&j);
	json_kv_str(&j, "op", io_op_names[o->op]);
	json_kv_str(&j, "disk", o->disk_id);
	json_kv_str(&j, "dev", c->dev);
	json_kv_u64(&j, "bs", o->bs);
	json_kv_u64(&j, "size", o->size);
	json_kv_u64(&j, "offset", o->offset);
	json_kv_u64(&j, "blocks", c->nblocks);
	json_kv_u64(&j, "seed", o->seed);
	json_kv_u64(&j, "gen", o->gen);
	json_kv_str(&j, "mode", o->rand ? "rand" : "seq");
	json_kv_bool(&j, "direct", c->direct);
	json_kv_u64(&j, "passes", o->passes);
	json_kv_u64(&j, "elapsed_ms", (uint64_t)(c->st.elapsed_ns / 1000000));
	json_kv_double(&j, "mb_per_s", secs > 0 ? (double)c->st.bytes / 1e6 / secs : 0);
	json_kv_u64(&j, "iops", secs > 0 ? (uint64_t)((double)c->st.ios / secs) : 0);
	io_report_lat(c, &j);
	/* one I/O at a time: the longest I/O is the longest time nothing moved */
	json_kv_u64(&j, "stall_ms", (uint64_t)(c->st.stall_ns / 1000000));
	json_kv_u64(&j, "stall_at_ms", (uint64_t)(c->st.stall_at_ns / 1000000));
	json_kv_u64(&j, "io_errors", c->st.io_errors);
	json_kv_str(&j, "first_error", c->st.first_error[0] ? c->st.first_error : NULL);
	json_kv_str(&j, "first_error_op", c->st.first_error_op);
	json_key(&j, "first_error_lba");
	if (c->st.first_error_lba < 0)
		json_null(&j);
	else
		json_i64(&j, c->st.first_error_lba);
	io_report_mismatches(c, &j);
	json_kv_str(&j, "note", c->note);
	json_obj_end(&j);
	json_finish(&j);
}

static void io_report_error(const char *msg)
{
	struct json_out j;

	json_init(&j, stdout);
	json_obj_begin(&j);
	json_kv_str(&j, "error", msg);
	json_obj_end(&j);
	json_finish(&j);
}

/* Written beside the target and renamed, so that whoever polls for the
 * report never reads half of one. */
static int io_write_report(struct io_ctx *c, const char *path)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	io_report(c, f);
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

static int io_exit_code(const struct io_ctx *c)
{
	return c->st.io_errors || c->st.mismatches ? 1 : 0;
}

/* The child lets go of the caller's stdout and stderr: the guest agent waits
 * for its pipes to close before it reports the command done. */
static int io_background(struct io_ctx *c)
{
	pid_t pid;
	int null;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		io_fail(c, errno, "fork");
		io_report_error(c->st.first_error);
		return 1;
	}
	if (pid > 0) {
		printf("{\"pid\":%d}\n", (int)pid);
		return 0;
	}
	setsid();
	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	io_run(c);
	_exit(io_write_report(c, c->o->report) ? 1 : io_exit_code(c));
}

static int io_setup(struct io_ctx *c)
{
	int ret;

	ret = io_resolve(c);
	if (!ret)
		ret = io_open(c);
	if (!ret)
		ret = io_layout(c);
	if (!ret)
		ret = io_alloc(c);
	return ret;
}

int main(int argc, char **argv)
{
	struct io_opts o;
	struct io_ctx c = { .o = &o, .fd = -1 };
	int ret;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		io_usage(stdout);
		return 0;
	}
	if (io_parse_args(&o, argc, argv)) {
		io_usage(stderr);
		return 2;
	}
	ret = io_setup(&c);
	if (ret) {
		io_report_error(c.st.first_error);
		if (ret != -EINVAL)
			return 1;
		fprintf(stderr, "ktb-io: %s\n", c.st.first_error);
		return 2;
	}
	if (o.background)
		return io_background(&c);
	io_run(&c);
	if (o.report && io_write_report(&c, o.report))
		fprintf(stderr, "ktb-io: cannot write %s: %s\n", o.report, strerror(errno));
	io_report(&c, stdout);
	return io_exit_code(&c);
}
