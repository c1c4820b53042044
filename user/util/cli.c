// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Command lines from tables (cli.h): getopt_long()'s tables, the help and
 * the usage errors, made from a command's rows.
 */
#include <ctype.h>
#include <string.h>

#include "util/cli.h"

/* The hidden option that prints the rows (cli.h). */
#define CLI_LIST_OPTIONS (CLI_KEY - 1)

static bool has_letter(const struct cli_opt *o)
{
	return o->key > 0 && o->key < CLI_KEY && isalnum(o->key);
}

int cli_init(struct cli *c, const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct cli_opt *o;
	size_t n = 0, k = 0;

	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->argc = argc;
	c->argv = argv;
	if (cmd->stop_at_arg)
		c->shortopts[k++] = '+';	/* a subcommand's options are its own */
	if (cmd->on_error == CLI_ERR_OWN)
		c->shortopts[k++] = ':';	/* a missing value is told apart */
	for (o = cmd->opts; o && o->name; o++) {
		if (n == CLI_OPTS_MAX) {
			fprintf(stderr, "%s: more than %d options; raise CLI_OPTS_MAX\n",
				cmd->name, CLI_OPTS_MAX);
			return -1;
		}
		c->longopts[n++] = (struct option){
			o->name, o->arg ? required_argument : no_argument,
			NULL, o->key };
		if (has_letter(o)) {
			c->shortopts[k++] = (char)o->key;
			if (o->arg)
				c->shortopts[k++] = ':';
		}
	}
	c->longopts[n++] = (struct option){ "list-options", no_argument, NULL,
					    CLI_LIST_OPTIONS };
	c->longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	c->shortopts[k] = '\0';
	/* 0, not 1: glibc starts afresh, after an earlier command line
	 * (xrxctl's own, before its subcommand's). */
	optind = 0;
	opterr = cmd->on_error != CLI_ERR_OWN;
	return 0;
}

static void list_options(const struct cli_cmd *cmd)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o && o->name; o++)
		printf("--%s%s%s\n", o->name, o->arg ? " " : "",
		       o->arg ? o->arg : "");
}

/* A usage error: what follows the line that names it. */
static int usage_error(struct cli *c, int ch)
{
	const struct cli_cmd *cmd = c->cmd;

	switch (cmd->on_error) {
	case CLI_ERR_OWN:
		if (ch == ':')
			fprintf(stderr, "%s: option %s needs a value; see --help\n",
				cmd->name, c->argv[optind - 1]);
		else
			fprintf(stderr, "%s: unknown option '%s'; see --help\n",
				cmd->name, c->argv[optind - 1]);
		break;
	case CLI_ERR_HELP:
		cli_help(cmd, stderr);
		break;
	default:
		fprintf(stderr, "%s: see '%s --help'\n", cmd->name, cmd->name);
		break;
	}
	return CLI_EXIT_USAGE;
}

int cli_next(struct cli *c)
{
	int ch;

	for (;;) {
		ch = getopt_long(c->argc, c->argv, c->shortopts, c->longopts,
				 NULL);
		c->arg = optarg;
		switch (ch) {
		case -1:
			c->ind = optind;
			return CLI_DONE;
		case '?':
		case ':':
			return usage_error(c, ch);
		case CLI_LIST_OPTIONS:
			list_options(c->cmd);
			return CLI_EXIT_OK;
		case 'v':
			c->verbosity++;
			continue;
		case 'q':
			c->verbosity = -1;
			continue;
		case 'h':
			cli_help(c->cmd, stdout);
			return CLI_EXIT_OK;
		case 'V':
			printf("%s %s\n", c->cmd->name, c->cmd->version);
			return CLI_EXIT_OK;
		default:
			return ch;
		}
	}
}

static void help_row(FILE *f, const struct cli_opt *o, int width)
{
	const char *h = o->help, *nl;
	char lhs[128];

	if (o->show)
		snprintf(lhs, sizeof(lhs), "%s", o->show);
	else if (has_letter(o))
		snprintf(lhs, sizeof(lhs), "-%c, --%s%s%s", o->key, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(lhs, sizeof(lhs), "    --%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	if (!*h) {
		fprintf(f, "  %s\n", lhs);
		return;
	}
	fprintf(f, "  %-*s ", width, lhs);
	for (; (nl = strchr(h, '\n')); h = nl + 1)
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, width + 3, "");
	fprintf(f, "%s\n", h);
}

void cli_help(const struct cli_cmd *cmd, FILE *f)
{
	const struct cli_sub *s;
	const struct cli_opt *o;
	int wname = 0, wargs = 0;

	fputs(cmd->usage, f);
	for (s = cmd->subs; s && s->name; s++) {
		if ((int)strlen(s->name) > wname)
			wname = (int)strlen(s->name);
		if ((int)strlen(s->args) > wargs)
			wargs = (int)strlen(s->args);
	}
	for (s = cmd->subs; s && s->name; s++)
		fprintf(f, "  %-*s %-*s %s\n", wname, s->name, wargs, s->args,
			s->help);
	if (cmd->opts_head)
		fputs(cmd->opts_head, f);
	for (o = cmd->opts; cmd->width && o && o->name; o++)
		if (o->help)
			help_row(f, o, cmd->width);
	if (cmd->footer)
		fputs(cmd->footer, f);
}

const struct cli_opt *cli_opt_of(const struct cli_cmd *cmd, int key)
{
	const struct cli_opt *o;

	for (o = cmd->opts; o && o->name; o++)
		if (o->key == key)
			return o;
	return NULL;
}

const struct cli_sub *cli_sub_of(const struct cli_cmd *cmd, const char *name)
{
	const struct cli_sub *s;

	for (s = cmd->subs; s && s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}
