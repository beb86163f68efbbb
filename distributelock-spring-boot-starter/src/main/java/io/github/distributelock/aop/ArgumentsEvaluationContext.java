package io.github.distributelock.aop;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.context.expression.MapAccessor;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.spel.support.ReflectivePropertyAccessor;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * Exposes a call's arguments as SpEL variables by parameter name, {@code p<i>} and
 * {@code a<i>}, looked up by a precomputed index rather than bound one by one per call.
 * The property accessors are shared so their reflection caches last across calls.
 */
final class ArgumentsEvaluationContext extends StandardEvaluationContext {

	private static final List<PropertyAccessor> SHARED_ACCESSORS = List.of(new MapAccessor(),
			new ReflectivePropertyAccessor());

	private final Map<String, Integer> indexByName;

	private final @Nullable Object[] arguments;

	ArgumentsEvaluationContext(Map<String, Integer> indexByName, @Nullable Object[] arguments) {
		this.indexByName = indexByName;
		this.arguments = arguments;
		setPropertyAccessors(SHARED_ACCESSORS);
	}

	@Override
	public @Nullable Object lookupVariable(String name) {
		Integer index = this.indexByName.get(name);
		return (index != null) ? this.arguments[index] : super.lookupVariable(name);
	}

}
