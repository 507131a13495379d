// SPDX-License-Identifier: GPL-2.0
/*
 * klb's events: one generic netlink message per change, to the family's
 * "events" multicast group, in the namespace that changed.
 *
 * The family is the netlink layer's: it hands it over once registered and
 * takes it back (and waits a grace period) before unregistering, so a
 * sender in any context either sees a registered family, whose group ids
 * are still ours, or none. Building the message happens outside that
 * read section, so that a command may build it with GFP_KERNEL.
 *
 * Who may listen: every user of the namespace, as reading klb's state is
 * open to all (GET and dumps, like `ip route show` and `ip monitor`): an
 * event says nothing a dump does not. So the group has no GENL_MCAST_CAP_*
 * flag.
 */
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>

#include "klb.h"
#include "backend_nla.h"
#include "events.h"

static const struct genl_family __rcu *klb_events_family;
static unsigned int klb_events_group;

void klb_events_register(const struct genl_family *family,
			 unsigned int group)
{
	klb_events_group = group;
	rcu_assign_pointer(klb_events_family, family);
}

void klb_events_unregister(void)
{
	RCU_INIT_POINTER(klb_events_family, NULL);
	synchronize_rcu();
}

/* The family, if registered and someone in @net listens. */
static const struct genl_family *klb_events_listened(struct net *net)
{
	const struct genl_family *family;

	rcu_read_lock();
	family = rcu_dereference(klb_events_family);
	if (family && !genl_has_listeners(family, net, klb_events_group))
		family = NULL;
	rcu_read_unlock();
	return family;
}

static size_t klb_event_size(void)
{
	return nla_total_size(0) +				/* EVENT */
	       2 * nla_total_size(sizeof(u8)) +			/* OBJECT, ACTION */
	       nla_total_size_64bit(sizeof(u64)) +		/* TIME */
	       nla_total_size(KLB_EVENT_REASON_MAX) +		/* REASON */
	       2 * nla_total_size(KLB_NAME_MAX) +		/* POOL, SERVICE */
	       nla_total_size(sizeof(u8)) +			/* SCHED */
	       nla_total_size(0) + klb_backend_nla_size() +	/* BACKEND */
	       nla_total_size(sizeof(u8)) +			/* its HEALTH */
	       nla_total_size(sizeof(u32)) +			/* EJECTED_MS */
	       3 * nla_total_size(sizeof(u32));			/* counts */
}

/* A string attribute, cut to @max - 1 bytes: a reason never fails an event. */
static int klb_event_put_str(struct sk_buff *skb, int type, const char *s,
			     size_t max)
{
	size_t len = strnlen(s, max - 1);
	struct nlattr *attr;

	attr = nla_reserve(skb, type, len + 1);
	if (!attr)
		return -EMSGSIZE;
	memcpy(nla_data(attr), s, len);
	((char *)nla_data(attr))[len] = '\0';
	return 0;
}

/*
 * The backend of an event: the same attributes as in a pool dump, without
 * the counters (backend_nla.c), and its health once a check decided it
 * and its ejection while it lasts, which a dump shows only for pools with
 * a check or passive health.
 */
static int klb_event_put_backend(struct sk_buff *skb,
				 const struct klb_backend *be)
{
	unsigned long until = READ_ONCE(be->ejected_until);
	u8 health = READ_ONCE(be->health);
	struct nlattr *nest;

	nest = nla_nest_start(skb, KLB_EVENT_A_BACKEND);
	if (!nest || klb_backend_nla_put(skb, be) ||
	    (health != KLB_HEALTH_UNKNOWN &&
	     nla_put_u8(skb, KLB_BACKEND_A_HEALTH, health)))
		return -EMSGSIZE;
	if (klb_backend_ejected(be) &&
	    nla_put_u32(skb, KLB_BACKEND_A_EJECTED_MS,
			jiffies_to_msecs(until - jiffies)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int klb_event_fill(struct sk_buff *skb, const struct klb_event *ev)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KLB_A_EVENT);
	if (!nest ||
	    nla_put_u8(skb, KLB_EVENT_A_OBJECT, ev->object) ||
	    nla_put_u8(skb, KLB_EVENT_A_ACTION, ev->action) ||
	    nla_put_u64_64bit(skb, KLB_EVENT_A_TIME, ktime_get_real_ns(),
			      KLB_EVENT_A_PAD))
		return -EMSGSIZE;
	if (ev->reason && klb_event_put_str(skb, KLB_EVENT_A_REASON,
					    ev->reason, KLB_EVENT_REASON_MAX))
		return -EMSGSIZE;
	if (ev->pool && klb_event_put_str(skb, KLB_EVENT_A_POOL, ev->pool,
					  KLB_NAME_MAX))
		return -EMSGSIZE;
	if (ev->service && klb_event_put_str(skb, KLB_EVENT_A_SERVICE,
					     ev->service, KLB_NAME_MAX))
		return -EMSGSIZE;
	if (ev->sched >= 0 && nla_put_u8(skb, KLB_EVENT_A_SCHED, ev->sched))
		return -EMSGSIZE;
	if (ev->be && klb_event_put_backend(skb, ev->be))
		return -EMSGSIZE;
	if (ev->has_counts &&
	    (nla_put_u32(skb, KLB_EVENT_A_POOLS, ev->npools) ||
	     nla_put_u32(skb, KLB_EVENT_A_SERVICES, ev->nservices) ||
	     nla_put_u32(skb, KLB_EVENT_A_BACKENDS, ev->nbackends)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static struct sk_buff *klb_event_build(const struct genl_family *family,
				       const struct klb_event *ev, gfp_t gfp)
{
	struct sk_buff *skb;
	void *hdr;

	skb = genlmsg_new(klb_event_size(), gfp | __GFP_NOWARN);
	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, 0, 0, family, 0, KLB_CMD_EVENT);
	if (!hdr || klb_event_fill(skb, ev)) {
		/* klb_event_size() is the bound: never happens. */
		WARN_ON_ONCE(1);
		nlmsg_free(skb);
		return NULL;
	}
	genlmsg_end(skb, hdr);
	return skb;
}

void klb_event_send(struct klb_net *kn, const struct klb_event *ev, gfp_t gfp)
{
	const struct genl_family *family;
	struct sk_buff *skb;

	family = klb_events_listened(kn->net);
	if (!family)
		return;
	skb = klb_event_build(family, ev, gfp);

	rcu_read_lock();
	if (rcu_dereference(klb_events_family) != family) {
		/* Unregistering: its group ids may be someone else's now. */
		kfree_skb(skb);
	} else if (!skb) {
		/* Lost: say so to the listeners, as an overrun would. */
		genl_set_err(family, kn->net, 0, klb_events_group, -ENOBUFS);
	} else {
		/* No listener left (-ESRCH) or one overran: theirs to see. */
		genlmsg_multicast_netns(family, kn->net, skb, 0,
					klb_events_group, GFP_ATOMIC);
	}
	rcu_read_unlock();
}

void klb_event_backend(struct klb_net *kn, const struct klb_pool *pool,
		       const struct klb_backend *be, const char *reason)
{
	bool operator = reason && !strcmp(reason, KLB_EVENT_REASON_OPERATOR);
	struct klb_event ev = {
		.object = KLB_EVENT_BACKEND,
		.action = operator ? KLB_EVENT_STATE : KLB_EVENT_HEALTH,
		.reason = reason,
		.pool = pool->name,
		.sched = -1,
		.be = be,
	};

	klb_event_send(kn, &ev, GFP_ATOMIC);
}
