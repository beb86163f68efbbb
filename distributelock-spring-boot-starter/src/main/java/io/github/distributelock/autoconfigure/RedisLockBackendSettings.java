package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.redis.RedisLockBackend;

/**
 * The settings from which the auto-configuration creates the {@link RedisLockBackend}, on
 * the application's
 * {@link org.springframework.data.redis.connection.RedisConnectionFactory
 * RedisConnectionFactory}: first the {@code distributelock.redis.*} properties, then what
 * each {@link RedisLockBackendCustomizer} changes.
 *
 * @since 1.0.0
 */
public final class RedisLockBackendSettings {

	private String keyPrefix;

	private Duration fenceIdleTimeout;

	private int minReplicasToAck;

	private Duration replicaAckTimeout;

	private final DistributeLockProperties.Redis properties;

	RedisLockBackendSettings(DistributeLockProperties.Redis properties) {
		this.properties = properties;
		this.keyPrefix = properties.getKeyPrefix();
		this.fenceIdleTimeout = properties.getFenceIdleTimeout();
		this.minReplicasToAck = properties.getMinReplicasToAck();
		this.replicaAckTimeout = properties.getReplicaAckTimeout();
	}

	/**
	 * The text before each lock key in Redis. Every instance that must exclude the others
	 * needs the same prefix.
	 * @return the key prefix
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Sets the text before each lock key in Redis.
	 * @param keyPrefix the key prefix
	 */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * How long the fencing counter of a key is kept after its last acquisition (and the
	 * last releases of its readers and permit holders after the last of them).
	 * @return the idle timeout of the fencing counters
	 */
	public Duration getFenceIdleTimeout() {
		return this.fenceIdleTimeout;
	}

	/**
	 * Sets how long the fencing counter of a key is kept after its last acquisition.
	 * @param fenceIdleTimeout the idle timeout of the fencing counters
	 */
	public void setFenceIdleTimeout(Duration fenceIdleTimeout) {
		this.fenceIdleTimeout = fenceIdleTimeout;
	}

	/**
	 * How many replicas must acknowledge each acquisition and renewal, {@code 0} not to
	 * wait for replicas.
	 * @return the number of replicas
	 */
	public int getMinReplicasToAck() {
		return this.minReplicasToAck;
	}

	/**
	 * Sets how many replicas must acknowledge each acquisition and renewal.
	 * @param minReplicasToAck the number of replicas, {@code 0} not to wait for replicas
	 */
	public void setMinReplicasToAck(int minReplicasToAck) {
		this.minReplicasToAck = minReplicasToAck;
	}

	/**
	 * How long to wait for the replicas to acknowledge.
	 * @return the timeout
	 */
	public Duration getReplicaAckTimeout() {
		return this.replicaAckTimeout;
	}

	/**
	 * Sets how long to wait for the replicas to acknowledge.
	 * @param replicaAckTimeout the timeout
	 */
	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		this.replicaAckTimeout = replicaAckTimeout;
	}

	/** What the customizers changed, such as {@code "keyPrefix to x"}. */
	List<String> changedByCustomizers() {
		List<String> changes = new ArrayList<>();
		CustomizedSettings.addIfChanged(changes, "keyPrefix", this.properties.getKeyPrefix(), this.keyPrefix);
		CustomizedSettings.addIfChanged(changes, "fenceIdleTimeout", this.properties.getFenceIdleTimeout(),
				this.fenceIdleTimeout);
		CustomizedSettings.addIfChanged(changes, "minReplicasToAck", this.properties.getMinReplicasToAck(),
				this.minReplicasToAck);
		CustomizedSettings.addIfChanged(changes, "replicaAckTimeout", this.properties.getReplicaAckTimeout(),
				this.replicaAckTimeout);
		return changes;
	}

}
