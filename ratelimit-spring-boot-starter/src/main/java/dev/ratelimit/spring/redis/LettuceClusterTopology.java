package dev.ratelimit.spring.redis;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.event.cluster.AdaptiveRefreshTriggeredEvent;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * How the limiter's Lettuce cluster client keeps its map of slots to masters current, so that decisions resume
 * within about a second of a replica's promotion.
 *
 * <p>
 * Lettuce refreshes the topology on its own ("adaptive" refreshes) when Redis redirects a command ({@code MOVED},
 * {@code ASK}), or a node connection keeps failing to reconnect (a killed master), but at most once per
 * adaptive-refresh timeout: 30 s by default, and the refresh the failing master triggers runs before the cluster has
 * promoted its replica (some 4 s later with a 2 s {@code cluster-node-timeout}), so the limiter failed open for half
 * a minute. Nor does anything trigger one when a master hangs ({@code SIGSTOP}, a frozen VM): its connection stays
 * open and commands time out. So:
 * <ul>
 * <li>a refresh when one of the limiter's commands fails in a way a changed topology may explain (a timeout, a node
 * not connected, {@code CLUSTERDOWN}, {@code READONLY}), or a request's deadline passes with Redis silent, at most
 * once per {@link #INTERVAL} (1 s). A frozen master is seen through those deadlines (and the commands' own backstop
 * timeout): without them, only the periodic refresh would find the promotion. This replaces Lettuce's refresh on reconnection attempts, which would add refreshes of its own;</li>
 * <li>Lettuce's adaptive refreshes on redirections and on slots or nodes it does not know, within the same
 * interval;</li>
 * <li>a periodic refresh every {@link #PERIOD} (30 s), which bounds how stale the map can get when nothing fails.</li>
 * </ul>
 *
 * <p>
 * The cost: a refresh opens a connection to every node of the cluster and sends each {@code CLIENT SETNAME},
 * {@code CLUSTER NODES} and {@code INFO} (after the handshake, {@code HELLO}), then closes it: with 3 masters and 3
 * replicas, 6 connections and some 24 commands. A healthy cluster sees one refresh per {@link #PERIOD} per
 * application instance (under one command per second for six nodes); a failing one at most one refresh per second per
 * instance (24 commands and 6 connections per second). A node that hangs makes each refresh wait for its handshake,
 * up to {@code ratelimit.redis.connect-timeout}, and Lettuce reads the other nodes' views only after that: a refresh
 * then sees the cluster as it was at its end.
 */
public final class LettuceClusterTopology implements CommandListener {

	/** The least time between two refreshes triggered by failures or redirections. */
	static final Duration INTERVAL = Duration.ofSeconds(1);

	/** The time between two periodic refreshes. */
	static final Duration PERIOD = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(LettuceClusterTopology.class);

	private final Supplier<CompletionStage<Void>> refresh;

	private final OncePerInterval refreshes;

	LettuceClusterTopology(Supplier<CompletionStage<Void>> refresh, OncePerInterval refreshes) {
		this.refresh = refresh;
		this.refreshes = refreshes;
	}

	/**
	 * Lettuce's own refreshes: adaptive ones on redirections, uncovered slots and unknown nodes, at most once per
	 * {@link #INTERVAL}; a periodic one every {@link #PERIOD}.
	 */
	public static ClusterTopologyRefreshOptions refreshOptions() {
		return ClusterTopologyRefreshOptions.builder()
			.enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT, RefreshTrigger.ASK_REDIRECT,
					RefreshTrigger.UNCOVERED_SLOT, RefreshTrigger.UNKNOWN_NODE)
			.adaptiveRefreshTriggersTimeout(INTERVAL)
			.enablePeriodicRefresh(PERIOD)
			.build();
	}

	/** Refreshes {@code client}'s topology when its commands fail, sharing the interval with its adaptive refreshes. */
	public static LettuceClusterTopology refreshOnFailures(RedisClusterClient client) {
		LettuceClusterTopology topology = new LettuceClusterTopology(client::refreshPartitionsAsync,
				new OncePerInterval(INTERVAL));
		client.addListener(topology);
		client.getResources()
			.eventBus()
			.get()
			.filter(AdaptiveRefreshTriggeredEvent.class::isInstance)
			.subscribe((event) -> topology.refreshes.happened());
		return topology;
	}

	@Override
	public void commandFailed(CommandFailedEvent event) {
		if (topologyMayExplain(event.getCause())) {
			refresh();
		}
	}

	/**
	 * A request's deadline passed with Redis silent (a frozen master): a refresh, within the same interval, long before
	 * the command itself times out ({@code FairDeadlines}, the backstop of {@code TimeoutOptions}).
	 */
	public void deadlinePassed() {
		refresh();
	}

	private void refresh() {
		if (this.refreshes.tryAcquire()) {
			try {
				this.refresh.get().exceptionally((ex) -> {
					logger.debug("Could not refresh the rate limiter's Redis Cluster topology", ex);
					return null;
				});
			}
			catch (RuntimeException ex) {
				// the client is shutting down
				logger.debug("Could not refresh the rate limiter's Redis Cluster topology", ex);
			}
		}
	}

	/**
	 * Whether a failed command may have gone to a node that is no longer the master of its slot: anything but an error
	 * reply (a timeout, a connection refused or lost), or an error reply about the cluster's state. An error of the
	 * command itself ({@code NOSCRIPT}, a script error) says nothing about the topology.
	 */
	static boolean topologyMayExplain(Throwable failure) {
		if (!(failure instanceof RedisCommandExecutionException reply)) {
			return failure != null;
		}
		String message = reply.getMessage();
		return message != null && (message.startsWith("CLUSTERDOWN") || message.startsWith("READONLY")
				|| message.startsWith("MASTERDOWN") || message.startsWith("TRYAGAIN"));
	}

}
