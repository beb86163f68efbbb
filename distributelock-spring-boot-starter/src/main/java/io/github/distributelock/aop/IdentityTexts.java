package io.github.distributelock.aop;

import java.util.Arrays;
import java.util.Collection;

import org.jspecify.annotations.Nullable;

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
	 * The class of {@code value}, or of one of its elements if it is an array or a
	 * collection (written as its elements), whose {@code toString()} is
	 * {@link Object#toString()}; {@code null} if there is none.
	 */
	static @Nullable Class<?> identityTextOf(@Nullable Object value) {
		if (value == null) {
			return null;
		}
		if (value instanceof Object[] elements) {
			// Written with Arrays.deepToString: an array in it writes its elements.
			return firstOf(Arrays.asList(elements), false);
		}
		if (value instanceof Collection<?> elements) {
			// Written with its own toString(): an array in it writes its identity.
			return firstOf(elements, true);
		}
		// An array of primitives writes its numbers.
		return (!value.getClass().isArray() && hasIdentityText(value)) ? value.getClass() : null;
	}

	private static @Nullable Class<?> firstOf(Iterable<?> elements, boolean arraysWriteTheirIdentity) {
		for (Object element : elements) {
			if (element != null && (arraysWriteTheirIdentity || !element.getClass().isArray())
					&& hasIdentityText(element)) {
				return element.getClass();
			}
		}
		return null;
	}

	private static boolean hasIdentityText(Object value) {
		return OBJECT_TO_STRING.get(value.getClass());
	}

}
