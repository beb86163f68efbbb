package io.github.distributelock.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code distributelock.enabled} is false, read as the binder reads the
 * boolean property: {@code on}, {@code yes} or {@code 1} keep the locks on, and a value
 * that is no boolean at all lets the configuration go on so that binding the properties
 * fails the start naming it. Spring Boot's boolean property condition matches only
 * {@code true}, so any other value would turn every lock off without a word.
 */
class OnDistributeLockEnabledCondition extends SpringBootCondition {

	static final String PROPERTY = "distributelock.enabled";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConditionMessage.Builder message = ConditionMessage.forCondition("distributelock enabled");
		boolean enabled;
		try {
			enabled = Binder.get(context.getEnvironment()).bind(PROPERTY, Boolean.class).orElse(true);
		}
		catch (BindException ex) {
			return ConditionOutcome.match(message.because(PROPERTY + " is not a boolean, which its binding reports"));
		}
		return enabled ? ConditionOutcome.match(message.because(PROPERTY + " is not false"))
				: ConditionOutcome.noMatch(message.because(PROPERTY + " is false"));
	}

}
