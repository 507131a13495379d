// SPDX-License-Identifier: GPL-2.0
/*
 * A pool's active check: its probes, what their results decide, and the
 * republish of the pool's table when a backend's usability changed.
 *
 * A probe's work never takes klb_net->lock (config changes cancel probes
 * under it, synchronously): on a transition it marks the pool and queues
 * the netns's health work, which takes the lock once for any number of
 * transitions and republishes the marked pools. A pool is marked only
 * while it is live (linked in kn->pools); a staged pool has its probes
 * allocated but not started until the restore swaps it in.
 */
#include <linux/slab.h>

#include "events.h"
#include "health/probe.h"
#include "sched/table.h"

#define KLB_POOL_HEALTH_DIRTY	0

static const char * const klb_check_kinds[] = {
	[KLB_CHECK_NONE] = "none",
	[KLB_CHECK_TCP] = "tcp",
	[KLB_CHECK_HTTP] = "http",
	[KLB_CHECK_TLS] = "tls",
};

const char *klb_check_kind_name(u8 kind)
{
	return kind < ARRAY_SIZE(klb_check_kinds) ? klb_check_kinds[kind] :
						    "unknown";
}

void klb_check_defaults(struct klb_check_cfg *cfg, u8 kind)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->kind = kind;
	cfg->interval_ms = 2000;
	cfg->timeout_ms = 1000;
	cfg->rise = 2;
	cfg->fall = 3;
	cfg->expect = 2;
	strscpy(cfg->path, "/", sizeof(cfg->path));
}

static const char *klb_probe_errno_name(u32 err)
{
	switch (err) {
	case ECONNREFUSED:
		return "connection refused";
	case ECONNRESET:
		return "connection reset";
	case ETIMEDOUT:
		return "timed out";
	case EHOSTUNREACH:
		return "host unreachable";
	case ENETUNREACH:
		return "network unreachable";
	case EPIPE:
		return "broken pipe";
	default:
		return NULL;
	}
}

static const char * const klb_probe_phases[] = {
	[KLB_PROBE_IDLE] = "probe",
	[KLB_PROBE_CONNECTING] = "connect",
	[KLB_PROBE_SENDING] = "send",
	[KLB_PROBE_READING] = "answer",
};

/* @err (code << 24 | detail) in words after "KIND check: ". */
static const char *klb_probe_err_str(u32 err, u8 kind, char *buf, size_t len)
{
	u32 code = err >> 24, detail = err & 0xffffff;
	const char *k = klb_check_kind_name(kind), *s;

	switch (code) {
	case KLB_PROBE_ERR_CONNECT:
	case KLB_PROBE_ERR_IO:
		s = klb_probe_errno_name(detail);
		if (s)
			snprintf(buf, len, "%s check: %s%s", k,
				 code == KLB_PROBE_ERR_IO ? "i/o: " : "", s);
		else
			snprintf(buf, len, "%s check: %s error %u", k,
				 code == KLB_PROBE_ERR_IO ? "i/o" : "connect",
				 detail);
		break;
	case KLB_PROBE_ERR_TIMEOUT:
		snprintf(buf, len, "%s check: %s timeout", k,
			 detail < ARRAY_SIZE(klb_probe_phases) ?
			 klb_probe_phases[detail] : "probe");
		break;
	case KLB_PROBE_ERR_STATUS:
		snprintf(buf, len, "%s check: status %u", k, detail);
		break;
	case KLB_PROBE_ERR_BODY:
		snprintf(buf, len, "%s check: body mismatch", k);
		break;
	case KLB_PROBE_ERR_BAD_ANSWER:
		snprintf(buf, len, "%s check: bad answer", k);
		break;
	case KLB_PROBE_ERR_CLOSED:
		snprintf(buf, len, "%s check: closed before an answer", k);
		break;
	case KLB_PROBE_ERR_TLS_ALERT:
		snprintf(buf, len, "%s check: alert %u", k, detail);
		break;
	case KLB_PROBE_ERR_NOMEM:
		snprintf(buf, len, "%s check: out of memory", k);
		break;
	default:
		snprintf(buf, len, "%s", "");
		break;
	}
	return buf;
}

const char *klb_health_error(const struct klb_backend *be, u8 kind,
			     char *buf, size_t len)
{
	return klb_probe_err_str(READ_ONCE(be->check_err), kind, buf, len);
}

void klb_health_mark(struct klb_net *kn, struct klb_pool *pool)
{
	set_bit(KLB_POOL_HEALTH_DIRTY, &pool->health_dirty);
	klb_health_kick(kn, 0);
}

static void klb_health_change(struct klb_probe *p, u8 health, u32 err)
{
	struct klb_backend *be = p->be;
	bool was_usable = klb_backend_usable(be, false);
	char reason[64];

	WRITE_ONCE(be->health, health);
	WRITE_ONCE(be->health_changed, jiffies);
	if (health == KLB_HEALTH_UNHEALTHY)
		klb_probe_err_str(err, p->cfg->kind, reason, sizeof(reason));
	else
		snprintf(reason, sizeof(reason), "%s check: %u passed",
			 klb_check_kind_name(p->cfg->kind), p->passes);
	klb_event_backend(p->kn, p->pool, be, reason);
	if (was_usable != klb_backend_usable(be, false))
		klb_health_mark(p->kn, p->pool);
}

/* A probe's result (1 passed, else -(err)): its done callback. */
static void klb_probe_result(struct klb_probe *p, int res)
{
	const struct klb_check_cfg *cfg = p->cfg;
	struct klb_backend *be = p->be;
	u8 health = READ_ONCE(be->health);

	if (res > 0) {
		WRITE_ONCE(be->check_ok, be->check_ok + 1);
		p->failures = 0;
		if (!p->passes)
			p->streak_start = jiffies;
		if (p->passes < U8_MAX)
			p->passes++;
		if (health != KLB_HEALTH_HEALTHY && p->passes >= cfg->rise)
			klb_health_change(p, KLB_HEALTH_HEALTHY, 0);
		/* RISE passes since a passive ejection began end it early. */
		if (p->passes >= cfg->rise && klb_backend_ejected(be) &&
		    time_after_eq(p->streak_start, READ_ONCE(be->ejected_at))) {
			WRITE_ONCE(be->ejected_until, jiffies | 1);
			klb_health_mark(p->kn, p->pool);
		}
		return;
	}
	WRITE_ONCE(be->check_fail, be->check_fail + 1);
	WRITE_ONCE(be->check_err, (u32)-res);
	p->passes = 0;
	if (p->failures < U8_MAX)
		p->failures++;
	if (health != KLB_HEALTH_UNHEALTHY && p->failures >= cfg->fall)
		klb_health_change(p, KLB_HEALTH_UNHEALTHY, (u32)-res);
}

/* ---- under klb_net->lock ----------------------------------------------- */

static void klb_health_stop_probes(struct klb_pool *pool)
{
	struct klb_backend *be;

	list_for_each_entry(be, &pool->backends, pool_node) {
		if (be->probe) {
			klb_probe_free(be->probe);
			be->probe = NULL;
		}
	}
}

static void klb_health_reset(struct klb_backend *be)
{
	WRITE_ONCE(be->health, KLB_HEALTH_UNKNOWN);
	WRITE_ONCE(be->health_changed, jiffies);
	WRITE_ONCE(be->check_err, 0);
}

int klb_health_check_prepare(struct klb_net *kn, struct klb_pool *pool,
			     const struct klb_check_cfg *cfg,
			     struct klb_check_change *chg)
{
	struct klb_backend *be;
	u32 i = 0;

	klb_assert_locked(kn);
	memset(chg, 0, sizeof(*chg));
	if (!cfg)
		return 0;
	chg->cfg = kmemdup(cfg, sizeof(*cfg), GFP_KERNEL);
	if (!chg->cfg)
		return -ENOMEM;
	klb_obj_inc(KLB_OBJ_CHECK);
	chg->probes = kcalloc(pool->nbackends, sizeof(*chg->probes),
			      GFP_KERNEL);
	if (!chg->probes && pool->nbackends)
		goto nomem;
	/* The probes read the pool's check: they get the new one. */
	list_for_each_entry(be, &pool->backends, pool_node) {
		chg->probes[i] = klb_probe_alloc(kn, pool, be,
						 klb_probe_result);
		if (!chg->probes[i])
			goto nomem;
		chg->probes[i]->cfg = chg->cfg;
		chg->n = ++i;
	}
	return 0;
nomem:
	klb_health_check_abort(kn, pool, chg);
	return -ENOMEM;
}

bool klb_health_check_hold(struct klb_net *kn, struct klb_pool *pool)
{
	struct klb_backend *be;
	bool unhealthy = false;

	klb_assert_locked(kn);
	list_for_each_entry(be, &pool->backends, pool_node) {
		if (be->probe)
			klb_probe_pause(be->probe);
		unhealthy |= READ_ONCE(be->health) == KLB_HEALTH_UNHEALTHY;
		klb_health_reset(be);
	}
	return unhealthy;
}

void klb_health_check_commit(struct klb_net *kn, struct klb_pool *pool,
			     struct klb_check_change *chg)
{
	struct klb_backend *be;
	u32 i = 0;

	klb_assert_locked(kn);
	klb_health_stop_probes(pool);
	if (pool->check)
		klb_obj_dec(KLB_OBJ_CHECK);
	kfree(pool->check);
	pool->check = chg->cfg;
	list_for_each_entry(be, &pool->backends, pool_node) {
		if (i < chg->n) {
			be->probe = chg->probes[i++];
			if (pool->health_live)
				klb_probe_start(be->probe);
		}
	}
	kfree(chg->probes);
	memset(chg, 0, sizeof(*chg));
}

void klb_health_check_abort(struct klb_net *kn, struct klb_pool *pool,
			    struct klb_check_change *chg)
{
	struct klb_backend *be;
	u32 i;

	klb_assert_locked(kn);
	for (i = 0; i < chg->n; i++)
		klb_probe_free(chg->probes[i]);
	kfree(chg->probes);
	if (chg->cfg)
		klb_obj_dec(KLB_OBJ_CHECK);
	kfree(chg->cfg);
	memset(chg, 0, sizeof(*chg));
	/* What klb_health_check_hold() paused goes on (a no-op if not). */
	list_for_each_entry(be, &pool->backends, pool_node)
		if (be->probe && READ_ONCE(be->probe->stopping) &&
		    pool->health_live)
			klb_probe_resume(be->probe);
}

int klb_health_set_check(struct klb_net *kn, struct klb_pool *pool,
			 const struct klb_check_cfg *cfg)
{
	struct klb_check_change chg;
	int err;

	err = klb_health_check_prepare(kn, pool, cfg, &chg);
	if (err)
		return err;
	if (klb_health_check_hold(kn, pool)) {
		klb_health_check_commit(kn, pool, &chg);
		klb_sched_publish(kn, pool);	/* a failure: at the next one */
	} else {
		klb_health_check_commit(kn, pool, &chg);
	}
	return 0;
}

void klb_health_pool_start(struct klb_net *kn, struct klb_pool *pool)
{
	struct klb_backend *be;

	klb_assert_locked(kn);
	pool->health_live = true;
	list_for_each_entry(be, &pool->backends, pool_node)
		if (be->probe)
			klb_probe_start(be->probe);
}

void klb_health_pool_free(struct klb_net *kn, struct klb_pool *pool)
{
	klb_assert_locked(kn);
	klb_health_stop_probes(pool);
	pool->health_live = false;
	if (pool->check)
		klb_obj_dec(KLB_OBJ_CHECK);
	kfree(pool->check);
	pool->check = NULL;
}

int klb_health_backend_added(struct klb_net *kn, struct klb_pool *pool,
			     struct klb_backend *be)
{
	klb_assert_locked(kn);
	be->health_changed = jiffies;
	klb_health_passive_copy(kn, pool, be);
	if (!pool->check)
		return 0;
	be->probe = klb_probe_alloc(kn, pool, be, klb_probe_result);
	if (!be->probe)
		return -ENOMEM;
	if (pool->health_live)
		klb_probe_start(be->probe);
	return 0;
}

/*
 * A restore keeps @to and gives it @be, staged in @from: the probe that
 * was allocated for @from's check (not started: @from never went live)
 * goes with it when @to has the same check, so nothing can fail here.
 */
void klb_health_backend_moved(struct klb_net *kn, struct klb_pool *from,
			      struct klb_pool *to, struct klb_backend *be)
{
	klb_assert_locked(kn);
	if (be->probe && (!to->check ||
			  memcmp(to->check, from->check, sizeof(*to->check)))) {
		klb_probe_free(be->probe);
		be->probe = NULL;
	}
	klb_health_passive_copy(kn, to, be);
	if (!be->probe)
		return;
	be->probe->pool = to;
	be->probe->cfg = to->check;
	if (to->health_live)
		klb_probe_start(be->probe);
}

void klb_health_backend_removed(struct klb_net *kn, struct klb_backend *be)
{
	klb_assert_locked(kn);
	if (be->probe) {
		klb_probe_free(be->probe);
		be->probe = NULL;
	}
}

/* ---- the netns's republish work ---------------------------------------- */

/* The earlier of two deadlines in jiffies, 0 being none. */
static unsigned long klb_health_earlier(unsigned long a, unsigned long b)
{
	if (!a)
		return b;
	return b && time_before(b, a) ? b : a;
}

/* Slow start: republish a ramping pool this often, 10 steps at least. */
static unsigned long klb_health_ramp_step(const struct klb_pool *pool)
{
	return msecs_to_jiffies(clamp_t(u32, pool->slowstart_ms / 10, 100,
					1000));
}

/*
 * Under the lock: tell the ejections that began or ended, republish the
 * pools whose usable backends changed (a probe's transition, an ejection)
 * or that ramp; return when to look again (0: nothing pending).
 */
static unsigned long klb_health_pool_work(struct klb_net *kn,
					  struct klb_pool *pool,
					  unsigned long now, bool *retry)
{
	bool dirty = test_and_clear_bit(KLB_POOL_HEALTH_DIRTY,
					&pool->health_dirty);
	unsigned long next;
	struct klb_backend *be;

	list_for_each_entry(be, &pool->backends, pool_node) {
		klb_passive_tell(kn, pool, be);
		dirty |= klb_backend_usable(be, false) != be->published;
	}
	/* A ramp steps until a publish at or after its end clears it. */
	dirty |= pool->ramp_until != 0;
	if (dirty && klb_sched_publish(kn, pool)) {
		set_bit(KLB_POOL_HEALTH_DIRTY, &pool->health_dirty);
		*retry = true;
	}
	next = klb_passive_next_end(pool);
	if (pool->ramp_until) {
		unsigned long step = now + klb_health_ramp_step(pool);

		next = klb_health_earlier(next,
					  time_before(pool->ramp_until, step) ?
					  pool->ramp_until : step);
	}
	return next;
}

static void klb_health_work(struct work_struct *work)
{
	struct klb_net *kn = container_of(to_delayed_work(work),
					  struct klb_net, health_work);
	unsigned long now = jiffies, next = 0;
	struct klb_pool *pool;
	bool retry = false;

	mutex_lock(&kn->lock);
	list_for_each_entry(pool, &kn->pools, node)
		next = klb_health_earlier(next, klb_health_pool_work(kn, pool,
								     now,
								     &retry));
	mutex_unlock(&kn->lock);
	/* Out of memory for a table: try again a little later. */
	if (retry)
		next = klb_health_earlier(next, now + HZ / 10);
	if (next)
		queue_delayed_work(klb_health_wq, &kn->health_work,
				   time_after(next, now) ? next - now : 1);
}

void klb_health_net_init(struct klb_net *kn)
{
	INIT_DELAYED_WORK(&kn->health_work, klb_health_work);
}

void klb_health_net_exit(struct klb_net *kn)
{
	/* No probe is left to queue it again. */
	cancel_delayed_work_sync(&kn->health_work);
}
