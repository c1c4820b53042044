/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Command lines from tables. Each command (xrxd, xrxctl and its
 * subcommands, xrx-send, xrx-replay) describes its options once, a row
 * each; from the rows come getopt's tables, the --help text and the usage
 * errors, so an option cannot be accepted without being listed, nor
 * listed without being accepted. xdp-tools describes its tools' options
 * the same way (struct prog_option, lib/util/params.h); xrx-replay's
 * engine and sink flags are rows made from libxrx's options table
 * (include/xrx/options.h).
 *
 *	static const struct cli_opt opts[] = {
 *		CLI_OPT("config", 'c', "FILE", "config file"),
 *		CLI_OPT("state-dir", CLI_KEY + 0, "DIR", "state files"),
 *		CLI_OPT_VERBOSE("more messages"), CLI_OPT_QUIET,
 *		CLI_OPT_HELP, CLI_OPT_VERSION, CLI_OPT_END,
 *	};
 *	static const struct cli_cmd cmd = { .name = "prog", ... };
 *	struct cli c;
 *	int k;
 *
 *	cli_init(&c, &cmd, argc, argv);
 *	while ((k = cli_next(&c)) > 0)
 *		switch (k) { case 'c': config = c.arg; break; ... }
 *	if (k < 0)
 *		return k == CLI_EXIT_OK ? 0 : 2;
 *	// arguments: argv[c.ind] .. argv[argc - 1]; c.verbosity from -v/-q
 *
 * The help is laid out as the commands always printed it: "  -k, --name
 * ARG" in a column of cmd->width, a blank, then the text, whose "\n"
 * continues it under the text; a wider left column (a row's own `show`,
 * naming several options) pushes the text right.
 *
 * A hidden --list-options prints every row, "--name ARG" a line, for the
 * tests that hold the rows to --help and the man pages, and for shell
 * completion.
 */
#ifndef XRX_UTIL_CLI_H
#define XRX_UTIL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/* Keys of options without a letter: CLI_KEY, CLI_KEY + 1, ... */
#define CLI_KEY 256
/* Rows a command may have (getopt's tables are kept in struct cli). */
#define CLI_OPTS_MAX 48

struct cli_opt {
	const char *name;	/* --NAME; NULL ends the table */
	int key;		/* cli_next()'s value: the letter (-k), or
				 * CLI_KEY + n for an option without one */
	const char *arg;	/* the value's name ("DIR"); NULL: no value */
	const char *help;	/* NULL: not a line of its own (another
				 * row's `show` names it); "": no text */
	const char *show;	/* the whole left column, when it is not
				 * "-k, --NAME ARG" */
};

/* A row; CLI_OPT_SHOW(): one whose left column is @show. */
#define CLI_OPT(n, k, a, h) { .name = (n), .key = (k), .arg = (a), .help = (h) }
#define CLI_OPT_SHOW(n, k, a, h, s)                                            \
	{ .name = (n), .key = (k), .arg = (a), .help = (h), .show = (s) }

/*
 * The rows every command shares; cli_next() handles them: -v counts up
 * cli.verbosity, -q sets it to -1, -h prints the help, -V the version.
 */
#define CLI_OPT_VERBOSE(text) CLI_OPT("verbose", 'v', NULL, text)
#define CLI_OPT_QUIET CLI_OPT("quiet", 'q', NULL, "errors and warnings only")
#define CLI_OPT_HELP CLI_OPT("help", 'h', NULL, "this text")
#define CLI_OPT_VERSION CLI_OPT("version", 'V', NULL, "the version")
#define CLI_OPT_END { .name = NULL }

/* A subcommand; fn is called through the command's own type (xrxctl). */
typedef void (*cli_fn)(void);
#define CLI_FN(f) ((cli_fn)(f))

struct cli_sub {
	const char *name;	/* NULL ends the table */
	const char *args;	/* "[IFACE]" */
	const char *help;
	cli_fn fn;
};

/* What follows a usage error, after the line that names it. */
enum cli_on_error {
	CLI_ERR_HINT,	/* getopt's line, then "NAME: see 'NAME --help'" */
	CLI_ERR_HELP,	/* getopt's line, then the help, on stderr */
	CLI_ERR_OWN,	/* our line alone: "NAME: unknown option '--x'; see
			 * --help", "NAME: option --x needs a value; ..." */
};

struct cli_cmd {
	const char *name;	/* in messages and --version */
	const char *version;
	const char *usage;	/* the help up to the commands and options */
	const struct cli_sub *subs;	/* NULL, or a table of subcommands */
	const char *opts_head;	/* between those and the options, or NULL */
	const struct cli_opt *opts;
	int width;		/* the options' left column; 0: not listed */
	const char *footer;	/* after the options, or NULL */
	enum cli_on_error on_error;
	bool stop_at_arg;	/* options end at the first argument, which
				 * is a subcommand with options of its own */
};

enum {
	CLI_DONE = 0,		/* no more options: arguments from cli.ind */
	CLI_EXIT_OK = -1,	/* help or version printed: exit 0 */
	CLI_EXIT_USAGE = -2,	/* usage error said: exit 2 */
};

struct cli {
	const struct cli_cmd *cmd;
	int argc;
	char **argv;
	const char *arg;	/* the value of the option just returned */
	int ind;		/* the first argument, after CLI_DONE */
	int verbosity;		/* -v: +1 each, -q: -1 */
	struct option longopts[CLI_OPTS_MAX + 2];
	char shortopts[2 * CLI_OPTS_MAX + 4];
};

/*
 * Start on @argv, whose argv[0] names the command (a subcommand passes
 * its own name: getopt's messages begin with it). Returns -1 (said on
 * stderr) if the table has more than CLI_OPTS_MAX rows.
 */
int cli_init(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv);
/* The next option's key (value in c->arg), or CLI_DONE or CLI_EXIT_*. */
int cli_next(struct cli *c);
/* The help: usage, subcommands, options, footer. */
void cli_help(const struct cli_cmd *cmd, FILE *f);
/* The row of @key, or NULL. */
const struct cli_opt *cli_opt_of(const struct cli_cmd *cmd, int key);
/* The subcommand @name, or NULL. */
const struct cli_sub *cli_sub_of(const struct cli_cmd *cmd, const char *name);

#endif /* XRX_UTIL_CLI_H */
