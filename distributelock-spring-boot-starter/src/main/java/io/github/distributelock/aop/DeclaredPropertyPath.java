package io.github.distributelock.aop;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Checks a plain property path of {@code @Lockable} fields against the declared types
 * along it, so that a misspelt property fails at startup instead of at the first call. A
 * property counts as readable where SpEL's reflective accessor would read it: a public
 * {@code getX()}, {@code isX()} or {@code x()} method, or a public field. A step whose
 * declared type does not fix what its values can be read for (an interface, an abstract
 * class, {@code Object}, a map, an array, a type left open) ends the check, and the
 * value's own class decides at the call.
 */
final class DeclaredPropertyPath {

	private DeclaredPropertyPath() {
	}

	/**
	 * The first property of a path that no value of its declared type can have.
	 * @param method the annotated method
	 * @param targetClass the class of the bean, which binds the type variables of a
	 * generic class's method, or {@code null}
	 * @param parameterIndex the parameter the path starts at
	 * @param properties the path's properties after the parameter's name
	 * @return the property and the type that lacks it, or {@code null} if none is known
	 * to be missing
	 */
	static @Nullable Unreadable firstUnreadable(Method method, @Nullable Class<?> targetClass, int parameterIndex,
			String[] properties) {
		// Resolved for the bean's class: a generic service's T is the type its subclass
		// binds (SpecialProduct), not the bound of T (Product), which lacks its
		// properties.
		ResolvableType type = (targetClass != null)
				? ResolvableType.forMethodParameter(method, parameterIndex, targetClass)
				: ResolvableType.forMethodParameter(method, parameterIndex);
		for (String property : properties) {
			Class<?> declared = type.resolve();
			if (declared == null) {
				return null;
			}
			declared = ClassUtils.resolvePrimitiveIfNecessary(declared);
			if (!fixesItsProperties(declared)) {
				return null;
			}
			ResolvableType next = readableType(type, declared, property);
			if (next == null) {
				return new Unreadable(property, declared);
			}
			type = next;
		}
		return null;
	}

	private static boolean fixesItsProperties(Class<?> declared) {
		return !declared.isInterface() && !declared.isArray() && !Modifier.isAbstract(declared.getModifiers())
				&& declared != Object.class && !Map.class.isAssignableFrom(declared);
	}

	private static @Nullable ResolvableType readableType(ResolvableType type, Class<?> declared, String property) {
		Set<String> names = Set.of("get" + StringUtils.capitalize(property), "get" + property,
				"is" + StringUtils.capitalize(property), "is" + property, property);
		for (Method candidate : declared.getMethods()) {
			if (candidate.getParameterCount() == 0 && candidate.getReturnType() != void.class
					&& names.contains(candidate.getName())) {
				return ResolvableType.forType(candidate.getGenericReturnType(), type.as(candidate.getDeclaringClass()));
			}
		}
		for (Field field : declared.getFields()) {
			if (field.getName().equals(property)) {
				return ResolvableType.forField(field, type);
			}
		}
		return null;
	}

	/**
	 * A property that a declared type cannot be read for.
	 *
	 * @param property the property's name, as written in the path
	 * @param declared the type that has no such property
	 */
	record Unreadable(String property, Class<?> declared) {

		/**
		 * The properties the declared type can be read for, to suggest in the error.
		 * @return their names, sorted
		 */
		Set<String> readable() {
			Set<String> readable = new TreeSet<>();
			for (Method method : this.declared.getMethods()) {
				if (method.getParameterCount() == 0 && method.getReturnType() != void.class
						&& method.getDeclaringClass() != Object.class) {
					String name = method.getName();
					if (name.startsWith("get") && name.length() > 3) {
						readable.add(StringUtils.uncapitalize(name.substring(3)));
					}
					else if (name.startsWith("is") && name.length() > 2) {
						readable.add(StringUtils.uncapitalize(name.substring(2)));
					}
				}
			}
			for (Field field : this.declared.getFields()) {
				readable.add(field.getName());
			}
			if (this.declared.isRecord()) {
				for (RecordComponent component : this.declared.getRecordComponents()) {
					readable.add(component.getName());
				}
			}
			return readable;
		}

	}

}
