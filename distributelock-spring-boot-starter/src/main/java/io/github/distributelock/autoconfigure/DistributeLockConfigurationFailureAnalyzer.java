package io.github.distributelock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link DistributeLockConfigurationException} at startup.
 *
 */
class DistributeLockConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<DistributeLockConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DistributeLockConfigurationException cause) {
		return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
	}

}
