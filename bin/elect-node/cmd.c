/*
 * The commands of the control socket.  A command answers "ok KEY=VALUE
 * ..." or "err WHY" on one line; adding one is one function and one line
 * in the table.
 */
#include <stdio.h>
#include <string.h>

#include "node.h"
#include "util/util.h"

static void cmd_help(struct node *, struct ctl_client *,
    const struct ctl_req *);
static void cmd_status(struct node *, struct ctl_client *,
    const struct ctl_req *);

static const struct {
	const char	*name;
	int		 maxargs;
	void		 (*fn)(struct node *, struct ctl_client *,
			    const struct ctl_req *);
} cmds[] = {
	{ "help",	0,	cmd_help },
	{ "status",	0,	cmd_status },
};

static void
cmd_help(struct node *nd, struct ctl_client *c, const struct ctl_req *req)
{
	char list[256] = "";
	size_t i;

	for (i = 0; i < nitems(cmds); i++) {
		if (i > 0)
			strlcat(list, ",", sizeof(list));
		strlcat(list, cmds[i].name, sizeof(list));
	}
	ctl_reply(c, "ok version=%d commands=%s", CTL_VERSION, list);
}

static void
cmd_status(struct node *nd, struct ctl_client *c, const struct ctl_req *req)
{
	struct algo_status st;
	char grp[ALGO_ELID_STRLEN], ldr[8];
	algo_time now = mono_now();

	algo_query(nd->algo, now, &st);
	ctl_reply(c, "ok id=%u algo=%s status=%s leader=%s group=%s "
	    "incarnation=%llu secs=%.3f role=%s drops=%llu lost=%llu%s%s",
	    nd->self->id, algo_name(nd->opts->algo),
	    trace_status_name(st.state.status),
	    id_str(st.state.ldr, ldr, sizeof(ldr)),
	    algo_elid_fmt(&st.state.grp, grp, sizeof(grp)),
	    (unsigned long long)nd->inc, (double)(now - st.since) / 1e9,
	    st.leader ? "leader" : st.state.status == ST_NORM ? "follower" :
	    "none", (unsigned long long)nd->drops,
	    (unsigned long long)(nd->tw != NULL ? tw_lost(nd->tw) : 0),
	    st.extra[0] != '\0' ? " " : "", st.extra);
}

void
node_command(struct node *nd, struct ctl_client *c, const struct ctl_req *req)
{
	size_t i;

	for (i = 0; i < nitems(cmds); i++) {
		if (!ctl_str_eq(req->cmd, cmds[i].name))
			continue;
		if (req->argc > cmds[i].maxargs)
			ctl_reply(c, "err %s takes %d argument%s",
			    cmds[i].name, cmds[i].maxargs,
			    cmds[i].maxargs == 1 ? "" : "s");
		else
			cmds[i].fn(nd, c, req);
		return;
	}
	ctl_reply(c, "err unknown command %.*s", (int)req->cmd.n, req->cmd.p);
}
