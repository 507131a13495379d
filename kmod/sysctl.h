/* SPDX-License-Identifier: GPL-2.0 */
/* net.klb.* sysctls, one set per network namespace (sysctl.c). */
#ifndef _KLB_SYSCTL_H
#define _KLB_SYSCTL_H

struct klb_net;
struct ctl_table_header;

/* Timeouts in seconds, sizes in bytes; the datapath reads with READ_ONCE(). */
struct klb_sysctl {
	int conn_max;
	int tcp_timeout_syn;
	int tcp_timeout_established;
	int tcp_timeout_fin;
	int tcp_timeout_time_wait;
	int tcp_timeout_close;
	int udp_timeout;
	int udp_timeout_unreplied;	/* until the backend answers */
	int expire_nodest_conn;
	int fnat_port_min;		/* fnat source ports, per address and */
	int fnat_port_max;		/* backend (see l4/fnat.c) */
	int persist_max;		/* persistence entries of the netns */
	int expire_quiescent_template;	/* drained backend: forget clients */
	int tcp_timeout_adopt;		/* dr, tun: adopted, not proved live */
	int adopt_max;			/* such entries; 0: conn_max / 8 */
	/* L7 (http, tls modes) */
	int http_max_header_size;	/* request head over it: 431 */
	int http_max_headers;		/* field lines over it: 431 */
	int http_header_timeout;	/* head not complete in time: 408 */
	int http_keepalive_timeout;	/* idle client between requests */
	int http_response_timeout;	/* no response head in time: 504 */
	int l7_connect_timeout;		/* backend connect */
	int l7_idle_timeout;		/* no byte either way mid-message/relay */
	int l7_max_conns;		/* client connections per service */
	int l7_backend_idle_max;	/* idle keep-alive conns per backend */
	int l7_backend_idle_timeout;	/* a parked conn older than it is closed */
	int l7_max_sessions;		/* client connections of the netns */
	int l7_mem_max_kb;		/* session buffers of the netns, KiB */
	int tls_hello_timeout;		/* ClientHello not complete in time */
	int http_queue_max;		/* requests waiting per service (maxconn) */
	int http_queue_timeout;		/* a waiting request gets 503 after it */
	/* objects per netns, configured or staged (config/quota.h) */
	int pools_max;
	int backends_max;
	int services_max;
};

void klb_sysctl_defaults(struct klb_sysctl *s);
int klb_sysctl_net_init(struct klb_net *kn);
void klb_sysctl_net_exit(struct klb_net *kn);

#endif /* _KLB_SYSCTL_H */
