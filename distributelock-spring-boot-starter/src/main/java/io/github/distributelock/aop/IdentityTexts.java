package io.github.distributelock.aop;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/**
 * Finds values whose text is their identity: an object of a class that does not override
 * {@code toString()} writes {@code com.shop.Order@1b6d3586}, which differs at every call
 * and on every instance, so a lock key holding it locks nothing that another call would
 * lock.
 */
final class IdentityTexts {

	private static final ClassValue<Boolean> OBJECT_TO_STRING = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			try {
				return type.getMethod("toString").getDeclaringClass() == Object.class;
			}
			catch (NoSuchMethodException ex) {
				// Every class has one; an interface's method lookup cannot reach here.
				return false;
			}
		}

	};

	private IdentityTexts() {
	}

	/**
	 * The class of {@code value}, or of a value it holds, whose text in the key is
	 * {@link Object#toString()}'s; {@code null} if there is none. The key writes an array
	 * as {@code Arrays.deepToString} does, its nested arrays too; a collection writes
	 * each element by its {@code toString()}, where an array writes its identity
	 * ({@code [[J@1b6d3586]}).
	 */
	static @Nullable Class<?> identityTextOf(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		return value.getClass().isArray() ? inArray(value, seen) : written(value, seen);
	}

	/** As {@code Arrays.deepToString} writes an array's elements. */
	private static @Nullable Class<?> inArray(Object array, Set<Object> seen) {
		if (!(array instanceof Object[] elements) || !seen.add(array)) {
			// An array of primitives writes its numbers; one met again writes "[...]".
			return null;
		}
		for (Object element : elements) {
			Class<?> found = (element == null) ? null
					: element.getClass().isArray() ? inArray(element, seen) : written(element, seen);
			if (found != null) {
				return found;
			}
		}
		return null;
	}

	/** As {@code toString()} writes a value, a collection's elements included. */
	private static @Nullable Class<?> written(Object value, Set<Object> seen) {
		if (hasIdentityText(value)) {
			return textClass(value);
		}
		if (value instanceof Collection<?> elements && seen.add(value)) {
			for (Object element : elements) {
				// A collection writes itself as "(this Collection)".
				Class<?> found = (element == null || element == value) ? null : written(element, seen);
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	private static boolean hasIdentityText(Object value) {
		return OBJECT_TO_STRING.get(textClass(value));
	}

	/**
	 * The class whose {@code toString()} writes {@code value}: a Spring AOP proxy's (a
	 * scoped bean, an advised one) hands it to its target, whatever the proxy's own class
	 * declares.
	 */
	static Class<?> textClass(Object value) {
		return AopUtils.getTargetClass(value);
	}

}
