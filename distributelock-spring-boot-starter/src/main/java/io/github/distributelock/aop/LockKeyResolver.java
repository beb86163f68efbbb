package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.github.distributelock.LockMode;
import io.github.distributelock.Lockable;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;

/**
 * Finds the {@link Lockable @Lockable} of a method and compiles it into a
 * {@link LockDefinition} once, checking its fields against the method's parameters so
 * that a mistake fails at startup rather than at the first call.
 *
 * @since 1.0.0
 */
public class LockKeyResolver {

	private static final Pattern PROPERTY_PATH = Pattern.compile("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)*");

	private static final Pattern INDEXED_ARGUMENT = Pattern.compile("[pa]\\d+");

	private final SpelExpressionParser parser = new SpelExpressionParser(
			new SpelParserConfiguration(SpelCompilerMode.MIXED, LockKeyResolver.class.getClassLoader()));

	private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

	private final Map<MethodClassKey, Optional<LockDefinition>> definitions = new ConcurrentHashMap<>();

	private final ScheduledMinimumHold scheduledMinimumHold = new ScheduledMinimumHold();

	private final String separator;

	private final String defaultFailMessage;

	private final boolean failOnNullField;

	/**
	 * Creates a resolver that writes a null field value as {@code null}, as the original
	 * starter did.
	 * @param separator the text between the key and each field value
	 * @param defaultFailMessage the {@code "message|code"} of annotations without
	 * {@code failMsg}
	 */
	public LockKeyResolver(String separator, String defaultFailMessage) {
		this(separator, defaultFailMessage, false);
	}

	/**
	 * Creates a resolver.
	 * @param separator the text between the key and each field value
	 * @param defaultFailMessage the {@code "message|code"} of annotations without
	 * {@code failMsg}
	 * @param failOnNullField whether a null field value fails the call before locking,
	 * rather than being written as {@code null}
	 */
	public LockKeyResolver(String separator, String defaultFailMessage, boolean failOnNullField) {
		this.separator = separator;
		this.defaultFailMessage = defaultFailMessage;
		this.failOnNullField = failOnNullField;
	}

	/**
	 * The definition of a method's lock, or {@code null} if it is not
	 * {@link Lockable @Lockable}.
	 * @param method the invoked method
	 * @param targetClass the class of the target, or {@code null}
	 * @return the definition, or {@code null}
	 * @throws InvalidLockableException if the annotation cannot work on this method
	 */
	public @Nullable LockDefinition definition(Method method, @Nullable Class<?> targetClass) {
		return this.definitions.computeIfAbsent(new MethodClassKey(method, targetClass), (key) -> {
			if (targetClass != null && (Proxy.isProxyClass(targetClass) || ClassUtils.isLambdaClass(targetClass))) {
				// A bean that is itself a JDK proxy (a MyBatis mapper, an HTTP interface
				// client) or a lambda implements the method in a class without parameter
				// names: its interface's method defines the lock, as Spring's cache
				// interceptor reads a proxy's.
				return compile(ClassUtils.getInterfaceMethodIfPossible(method, targetClass), null);
			}
			return compile(AopUtils.getMostSpecificMethod(method, targetClass), targetClass);
		}).orElse(null);
	}

	private Optional<LockDefinition> compile(Method method, @Nullable Class<?> targetClass) {
		Lockable lockable = AnnotatedElementUtils.findMergedAnnotation(method, Lockable.class);
		if (lockable == null) {
			return Optional.empty();
		}
		if (lockable.key().isBlank()) {
			throw new InvalidLockableException(method, "key is blank",
					"Give the lock a name, such as " + "@Lockable(key = \"order.create\")");
		}
		if (lockable.waitTimeMs() < 0) {
			throw new InvalidLockableException(method, "waitTimeMs is " + lockable.waitTimeMs(),
					"Use 0 for a single attempt or a positive wait in milliseconds");
		}
		if (lockable.timeoutMs() <= 0 && lockable.timeoutMs() != -1) {
			throw new InvalidLockableException(method, "timeoutMs is " + lockable.timeoutMs(),
					"Use a positive lease in milliseconds, or -1 (the default) for a lease renewed while the method runs");
		}
		if (lockable.minHoldMs() < 0) {
			throw new InvalidLockableException(method, "minHoldMs is " + lockable.minHoldMs(),
					"Use 0 (the default) for no minimum hold, or a positive time in milliseconds, "
							+ "a little shorter than the gap between two runs");
		}
		if (lockable.timeoutMs() > 0 && lockable.minHoldMs() > lockable.timeoutMs()) {
			throw new InvalidLockableException(method,
					"minHoldMs (" + lockable.minHoldMs() + ") is longer than the fixed lease timeoutMs ("
							+ lockable.timeoutMs() + "), after which the store frees the lock anyway",
					"Set timeoutMs to at least minHoldMs, or to -1 for a lease renewed while the method runs, "
							+ "or shorten minHoldMs");
		}
		Map<String, Integer> indexByName = argumentIndexByName(method);
		String[] sources = lockable.fields();
		Expression[] fields = new Expression[sources.length];
		for (int i = 0; i < sources.length; i++) {
			if (sources[i].isBlank()) {
				throw new InvalidLockableException(method, "fields[" + i + "] is blank",
						"Remove it, or name what to append to the key, such as a property path \"product.id\" or "
								+ "a SpEL expression \"#p0\"");
			}
			fields[i] = compileField(method, targetClass, sources[i].trim(), indexByName);
		}
		String failMessage = lockable.failMsg().isEmpty() ? this.defaultFailMessage : lockable.failMsg();
		if (!lockable.failMsg().isEmpty() && !hasMessage(lockable.failMsg())) {
			throw new InvalidLockableException(method,
					"failMsg \"" + lockable.failMsg() + "\" has no message before its code",
					"Write the message its callers get before '|', such as \"Please do not submit twice|2101\", "
							+ "or leave failMsg out for distributelock.fail-message");
		}
		Duration lease = (lockable.timeoutMs() == -1) ? null : Duration.ofMillis(lockable.timeoutMs());
		BusyPolicy busyPolicy = BusyPolicy.of(method, lockable.onBusy(), failMessage);
		this.scheduledMinimumHold.check(method, Duration.ofMillis(lockable.minHoldMs()));
		return Optional.of(new LockDefinition(method, lockable.key(), this.separator, fields, sources, indexByName,
				Duration.ofMillis(lockable.waitTimeMs()), lease, this.failOnNullField, ReturnShape.of(method),
				kind(method, lockable), Duration.ofMillis(lockable.minHoldMs()), busyPolicy));
	}

	private LockDefinition.Kind kind(Method method, Lockable lockable) {
		if (lockable.permits() < 0) {
			throw new InvalidLockableException(method, "permits is " + lockable.permits(),
					"Use a positive number of holders, or 0 (the default) for a lock");
		}
		if (lockable.permits() > 0 && (lockable.mode() != LockMode.EXCLUSIVE || lockable.fair())) {
			throw new InvalidLockableException(method, "permits is combined with mode or fair",
					"A permit lock is its own kind: drop mode and fair, or drop permits");
		}
		if (lockable.fair() && lockable.mode() != LockMode.EXCLUSIVE) {
			throw new InvalidLockableException(method, "fair is combined with mode " + lockable.mode(),
					"Only an exclusive lock is fair; waiting writers already keep later readers out");
		}
		if (lockable.keyPerElement() && lockable.fields().length == 0) {
			throw new InvalidLockableException(method, "keyPerElement is set but there are no fields",
					"Name the field whose elements give the keys, such as fields = \"productIds\", or drop "
							+ "keyPerElement");
		}
		return new LockDefinition.Kind(lockable.mode(), lockable.fair(), lockable.permits(), lockable.keyPerElement());
	}

	/**
	 * Whether a {@code "message|code"} text has a message: a caller told only an empty
	 * text, or only a code, cannot tell what failed.
	 * @param messageAndCode the message, then optionally {@code |} and the code
	 * @return whether the text before the last {@code |} (or the whole text) is not blank
	 */
	public static boolean hasMessage(String messageAndCode) {
		int separator = messageAndCode.lastIndexOf('|');
		return !((separator < 0) ? messageAndCode : messageAndCode.substring(0, separator)).isBlank();
	}

	private Map<String, Integer> argumentIndexByName(Method method) {
		Map<String, Integer> indexByName = new HashMap<>();
		String[] names = this.parameterNames.getParameterNames(method);
		for (int i = 0; i < method.getParameterCount(); i++) {
			indexByName.put("p" + i, i);
			indexByName.put("a" + i, i);
			if (names != null) {
				indexByName.put(names[i], i);
			}
		}
		return Map.copyOf(indexByName);
	}

	private Expression compileField(Method method, @Nullable Class<?> targetClass, String source,
			Map<String, Integer> indexByName) {
		String expression = source;
		if (PROPERTY_PATH.matcher(source).matches()) {
			String root = source.split("\\.", 2)[0];
			if (!indexByName.containsKey(root) || INDEXED_ARGUMENT.matcher(root).matches()) {
				throw unknownParameter(method, source, root);
			}
			// A parameter named root or this is reached by its index: #root and #this
			// are SpEL's own, and never look the parameter up.
			String variable = (root.equals("root") || root.equals("this")) ? "p" + indexByName.get(root) : root;
			// A null anywhere on a plain path gives "null" rather than an error.
			expression = "#" + (variable + source.substring(root.length())).replace(".", "?.");
			checkDeclaredProperties(method, targetClass, source, indexByName.get(root),
					"#" + variable + source.substring(root.length()));
		}
		SpelExpression parsed;
		try {
			parsed = (SpelExpression) this.parser.parseExpression(expression);
		}
		catch (ParseException ex) {
			throw new InvalidLockableException(method,
					"field '" + source + "' is not a valid SpEL expression (" + ex.getMessage() + ")",
					"Use a property path such as \"product.id\" or a SpEL expression "
							+ "such as \"#product.id + '-' + #token\"",
					ex);
		}
		checkReferences(method, source, parsed.getAST(), indexByName, true);
		return parsed;
	}

	private void checkDeclaredProperties(Method method, @Nullable Class<?> targetClass, String path, int parameterIndex,
			String asSpel) {
		String[] properties = path.split("\\.");
		DeclaredPropertyPath.Unreadable unreadable = DeclaredPropertyPath.firstUnreadable(method, targetClass,
				parameterIndex, Arrays.copyOfRange(properties, 1, properties.length));
		if (unreadable != null) {
			throw new InvalidLockableException(method,
					"field '" + path + "' reads '" + unreadable.property() + "', which "
							+ unreadable.declared().getName()
							+ " does not have (no public getter or field of that name)",
					"Name one of its properties " + unreadable.readable()
							+ ", or, if the argument passed is a subclass that has it, write the field as SpEL: \""
							+ asSpel + "\"");
		}
	}

	private void checkReferences(Method method, String source, SpelNode node, Map<String, Integer> indexByName,
			boolean first) {
		if (node instanceof VariableReference) {
			String name = node.toStringAST().substring(1);
			// #this is the root too where the expression starts with it, and only in a
			// selection or projection (#ids.?[#this > 2]) an element.
			if (name.equals("root") || (first && name.equals("this"))) {
				throw rootObject(method, source, name);
			}
			if (!indexByName.containsKey(name) && !name.equals("this")) {
				throw unknownParameter(method, source, name);
			}
		}
		if (node instanceof BeanReference) {
			throw new InvalidLockableException(method,
					"field '" + source + "' refers to the bean '" + node.toStringAST().substring(1)
							+ "', and fields are evaluated against the arguments alone, without beans",
					"Pass what the key needs as an argument of the method, or lock by hand with DistributeLock "
							+ "inside it");
		}
		if (first && node instanceof PropertyOrFieldReference reference) {
			throw new InvalidLockableException(method,
					"field '" + source + "' starts with '" + reference.getName() + "', which is not a variable",
					"Start a SpEL expression with a parameter, such as #" + reference.getName()
							+ ", or write a plain property path such as \"product.id\"");
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(method, source, node.getChild(i), indexByName,
					first && i == 0 && node instanceof CompoundExpression);
		}
	}

	/**
	 * A field is evaluated against the arguments alone, so SpEL's {@code #root} (also
	 * when a parameter is named {@code root}), and {@code #this} where it is the root, is
	 * always null: {@code #root.args[0]}, written as for Spring's cache annotations,
	 * would fail every call.
	 */
	private InvalidLockableException rootObject(Method method, String source, String variable) {
		String[] names = this.parameterNames.getParameterNames(method);
		String known = (names != null) ? "by its parameter name " + Arrays.toString(names) + " or " : "by ";
		return new InvalidLockableException(method,
				"field '" + source + "' reads #" + variable + ", which is null here: fields are evaluated against "
						+ "the arguments alone, without the root object of Spring's cache annotations (#root.args, "
						+ "#root.method, #root.target)",
				"Name an argument " + known + "its position (#p0, #p1, ...), such as #p0");
	}

	private InvalidLockableException unknownParameter(Method method, String source, String root) {
		String[] names = this.parameterNames.getParameterNames(method);
		String known = (names != null) ? Arrays.toString(names) : "unknown";
		String fix = "Start the path with one of the parameter names " + known + " (or #p0, #p1, ...)";
		if (names == null || Arrays.stream(names).anyMatch((name) -> name.matches("arg\\d+"))) {
			fix += "; parameter names are only known when the code is compiled with -parameters";
		}
		return new InvalidLockableException(method, "field '" + source + "' names no parameter ('" + root + "')", fix);
	}

}
