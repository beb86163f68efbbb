package io.github.distributelock.autoconfigure;

import io.github.distributelock.aop.InvalidLockableException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an {@link InvalidLockableException} at startup.
 *
 */
class InvalidLockableFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockableException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockableException cause) {
		return new FailureAnalysis("The @Lockable annotation on " + cause.getMethod().toGenericString()
				+ " cannot work: " + cause.getProblem() + ".", cause.getFix() + ".", cause);
	}

}
