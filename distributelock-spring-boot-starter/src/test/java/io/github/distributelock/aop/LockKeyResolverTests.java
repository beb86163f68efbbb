package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import io.github.distributelock.LockRequest;
import io.github.distributelock.LogLines;
import io.github.distributelock.Lockable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@ExtendWith(OutputCaptureExtension.class)
class LockKeyResolverTests {

	private final LockKeyResolver resolver = new LockKeyResolver("_", "Please do not submit twice|2101");

	@Test
	void appendsEachFieldValueAfterTheKeyAsTheOriginalStarterDid() {
		assertThat(lockKey("createOrder", new Product(42L, "book"), "abc")).isEqualTo("order.addOder_42_abc");
	}

	@Test
	void followsNestedPathsThroughGettersPublicFieldsAndInheritedProperties() {
		Order order = new Order(new Customer(new Address("Paris")));
		assertThat(lockKey("ship", order, new SpecialProduct(7L, "pen", "blue"))).isEqualTo("ship_Paris_7_blue_pen");
	}

	@Test
	void writesNullForANullValueOrANullAlongThePath() {
		assertThat(lockKey("createOrder", new Product(null, "book"), null)).isEqualTo("order.addOder_null_null");
		assertThat(lockKey("ship", new Order(null), null)).isEqualTo("ship_null_null_null_null");
	}

	@Test
	void refusesANullValueOrANullAlongThePathWhenConfiguredTo() {
		LockKeyResolver strict = new LockKeyResolver("_", "busy", true);
		Method method = ReflectionUtils.findMethod(Service.class, "ship", Order.class, SpecialProduct.class);
		LockDefinition definition = strict.definition(method, Service.class);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(
					() -> definition.lockKey(new Object[] { new Order(null), new SpecialProduct(7L, "pen", "blue") }))
			.withMessageContaining("ship")
			.withMessageContaining("'order.customer.address.city' is null")
			.withMessageContaining("distributelock.fail-on-null-field");
		assertThat(definition.lockKey(
				new Object[] { new Order(new Customer(new Address("Paris"))), new SpecialProduct(7L, "pen", "blue") }))
			.isEqualTo("ship_Paris_7_blue_pen");
	}

	@Test
	void aParameterNamedRootIsReachedByAPlainPath() {
		// SpEL's own #root would be the (absent) evaluation root: "named_null" for every
		// call.
		assertThat(lockKey("named", new Product(5L, "x"))).isEqualTo("named_5");
	}

	@Test
	void keyPerElementWritesNullForANullElementOrRefusesItWhenConfiguredTo() {
		LockDefinition lenient = definition("each", List.class);
		assertThat(lenient.request(new Object[] { Arrays.asList(1L, null) }).parts()).extracting(LockRequest::key)
			.containsExactlyInAnyOrder("each_1", "each_null");
		LockKeyResolver strict = new LockKeyResolver("_", "busy", true);
		for (Object[] arguments : List.of(new Object[] { Arrays.asList(1L, null) },
				new Object[] { new Long[] { 1L, null } })) {
			Class<?> type = (arguments[0] instanceof List) ? List.class : Long[].class;
			LockDefinition definition = strict.definition(
					ReflectionUtils.findMethod(Service.class, (type == List.class) ? "each" : "eachOfArray", type),
					Service.class);
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> definition.request(arguments))
				.withMessageContaining("field 'ids' has a null element")
				.withMessageContaining("distributelock.fail-on-null-field");
		}
	}

	@Test
	void writesAnOptionalAsItsTextAsTheOriginalStarterDidAndWhatItHoldsThroughSpel() {
		LockDefinition definition = definition("optional", Optional.class, Optional.class);
		assertThat(definition.lockKey(new Object[] { Optional.of(42L), Optional.of(42L) }))
			.isEqualTo("optional_Optional[42]_42");
		assertThat(definition.lockKey(new Object[] { Optional.empty(), Optional.empty() }))
			.isEqualTo("optional_Optional.empty_null");
	}

	/**
	 * An array's own text is its identity ({@code [J@1b6d3586}): written as is, every
	 * call locked a key of its own, and no two calls excluded each other.
	 */
	@Test
	void writesAnArrayAsItsElementsAsAListIsWritten() {
		LockDefinition definition = definition("arrays", long[].class, String[].class, List.class);
		Object[] arguments = { new long[] { 1, 2 }, new String[] { "a", "b" }, List.of(1L, 2L) };
		Object[] sameValues = { new long[] { 1, 2 }, new String[] { "a", "b" }, List.of(1L, 2L) };
		assertThat(definition.lockKey(arguments)).isEqualTo("arrays_[1, 2]_[a, b]_[1, 2]")
			.isEqualTo(definition.lockKey(sameValues));
	}

	/**
	 * An object whose class does not override {@code toString()} writes its identity
	 * ({@code Product@1b6d3586}): every call locked a key of its own, and no two calls
	 * excluded each other.
	 */
	@Test
	void refusesAValueWhoseTextIsItsIdentityAndNamesTheFix() {
		LockDefinition definition = definition("whole", Object.class);
		Product product = new Product(7L, "pen");
		for (Object value : List.of(product, new Object[] { "a", product }, List.of(product))) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> definition.lockKey(new Object[] { value }))
				.withMessageContaining("field '#p0' " + ((value == product) ? "is" : "holds") + " a "
						+ Product.class.getName() + ", whose toString() and hashCode() are Object's")
				.withMessageContaining("nothing was locked")
				.withMessageContaining("Key by a property that names it (for example '#p0.id')");
		}
		for (Object value : List.of(Optional.of(product), java.util.Map.of("k", product),
				java.util.Map.of(product, "v"))) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> definition.lockKey(new Object[] { value }))
				.withMessageContaining("field '#p0' holds a " + Product.class.getName());
		}
		// A list writes an array in it as the array's own text; an array of arrays writes
		// the elements of each.
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> definition.lockKey(new Object[] { List.of(new long[] { 1 }) }))
			.withMessageContaining("field '#p0' holds a long[], whose toString() and hashCode() are Object's")
			.withMessageContaining("Hold a List there instead of the array");
		LockDefinition each = definition("wholeEach", List.class);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> each.request(new Object[] { List.of("a", product) }))
			.withMessageContaining("field 'values' is a " + Product.class.getName());
	}

	/**
	 * {@code Set.of} and {@code Map.of} list their elements in an order salted per JVM,
	 * and a hash set or map orders enums by their identity: equal arguments wrote
	 * different keys on different instances, whose locks excluded nothing between them.
	 */
	@Test
	void refusesASetOrMapWhoseOrderOfElementsDiffersBetweenJvms() {
		LockDefinition definition = definition("whole", Object.class);
		for (Object value : List.of(Set.of("a", "b"), Map.of("a", 1, "b", 2),
				new HashSet<>(List.of(Color.RED, Color.BLUE)), new HashMap<>(Map.of(Color.RED, 1, Color.BLUE, 2)))) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> definition.lockKey(new Object[] { value }))
				.withMessageContaining("field '#p0' is a " + value.getClass().getTypeName())
				.withMessageContaining("lists its elements in an order that differs between JVMs")
				.withMessageContaining("nothing was locked")
				.withMessageContaining("@Lockable(keyPerElement = true)");
		}
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> definition.lockKey(new Object[] { List.of("a", Set.of(1, 2, 3)) }))
			.withMessageContaining("field '#p0' holds a java.util.ImmutableCollections");
		// Written alike on every JVM: keyed as before.
		assertThat(definition.lockKey(new Object[] { Set.of("a") })).isEqualTo("whole_[a]");
		assertThat(definition.lockKey(new Object[] { new TreeSet<>(Set.of("b", "a")) })).isEqualTo("whole_[a, b]");
		assertThat(definition.lockKey(new Object[] { new HashSet<>(List.of("b", "a")) })).isEqualTo("whole_[a, b]");
		assertThat(definition.lockKey(new Object[] { EnumSet.of(Color.BLUE, Color.RED) }))
			.isEqualTo("whole_[RED, BLUE]");
		assertThat(definition.lockKey(new Object[] { new LinkedHashSet<>(List.of(Color.BLUE, Color.RED)) }))
			.isEqualTo("whole_[BLUE, RED]");
		// One key per element: the order of the set does not reach any key.
		LockDefinition each = definition("wholeEach", List.class);
		assertThat(each.request(new Object[] { Set.of("a", "b") }).parts()).extracting(LockRequest::key)
			.containsExactlyInAnyOrder("wholeEach_a", "wholeEach_b");
	}

	/**
	 * A wrapper ({@code Collections.unmodifiableSet}, {@code synchronizedMap},
	 * {@code checkedSet} ...) or a view ({@code keySet()}, {@code entrySet()}) of such a
	 * set or map lists its elements in its order, whatever the wrapper's own class:
	 * refused as the set or map itself is. One of a set with an order of its own
	 * ({@code LinkedHashSet}, {@code TreeSet}, {@code EnumSet}, {@code EnumMap}) is keyed
	 * as before.
	 */
	@Test
	void refusesAWrapperOrViewOfASetOrMapWhoseOrderOfElementsDiffersBetweenJvms() {
		LockDefinition definition = definition("whole", Object.class);
		Set<Color> colors = new HashSet<>(List.of(Color.RED, Color.BLUE));
		Map<Color, Integer> numbers = new HashMap<>(Map.of(Color.RED, 1, Color.BLUE, 2));
		Set<Color> concurrent = Collections.newSetFromMap(new ConcurrentHashMap<>());
		concurrent.addAll(colors);
		Set<String> byIdentity = Collections.newSetFromMap(new IdentityHashMap<>());
		byIdentity.addAll(List.of("a", "b"));
		for (Object value : List.of(Collections.unmodifiableSet(colors), Collections.synchronizedSet(colors),
				Collections.checkedSet(colors, Color.class), Collections.unmodifiableCollection(colors),
				Collections.unmodifiableMap(numbers), Collections.synchronizedMap(numbers), numbers.keySet(),
				numbers.entrySet(), concurrent, byIdentity, new WeakHashMap<>(numbers),
				new IdentityHashMap<>(Map.of("a", 1, "b", 2)))) {
			assertThatExceptionOfType(IllegalArgumentException.class).as(value.getClass().getName())
				.isThrownBy(() -> definition.lockKey(new Object[] { value }))
				.withMessageContaining("field '#p0' is a " + value.getClass().getTypeName())
				.withMessageContaining("lists its elements in an order that differs between JVMs");
		}
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> definition.lockKey(new Object[] { List.of(Collections.unmodifiableSet(colors)) }))
			.withMessageContaining("field '#p0' holds a java.util.Collections$UnmodifiableSet");
		// Written alike on every JVM: keyed as before.
		assertThat(definition
			.lockKey(new Object[] { Collections.unmodifiableSet(new LinkedHashSet<>(List.of(Color.BLUE, Color.RED))) }))
			.isEqualTo("whole_[BLUE, RED]");
		assertThat(definition.lockKey(new Object[] { Collections.unmodifiableSet(EnumSet.of(Color.BLUE, Color.RED)) }))
			.isEqualTo("whole_[RED, BLUE]");
		assertThat(definition
			.lockKey(new Object[] { Collections.unmodifiableSortedSet(new TreeSet<>(List.of(Color.BLUE, Color.RED))) }))
			.isEqualTo("whole_[RED, BLUE]");
		assertThat(definition.lockKey(new Object[] { Collections.unmodifiableMap(new EnumMap<>(numbers)) }))
			.isEqualTo("whole_{RED=1, BLUE=2}");
		assertThat(definition.lockKey(new Object[] { new EnumMap<>(numbers).entrySet() }))
			.isEqualTo("whole_[RED=1, BLUE=2]");
		assertThat(definition.lockKey(new Object[] { new LinkedHashMap<>(Map.of(Color.BLUE, 2)).keySet() }))
			.isEqualTo("whole_[BLUE]");
		assertThat(definition.lockKey(
				new Object[] { Collections.unmodifiableSet(new LinkedHashMap<>(new TreeMap<>(numbers)).keySet()) }))
			.isEqualTo("whole_[RED, BLUE]");
		assertThat(definition.lockKey(new Object[] { new CopyOnWriteArraySet<>(List.of(Color.BLUE, Color.RED)) }))
			.isEqualTo("whole_[BLUE, RED]");
		assertThat(definition.lockKey(new Object[] { Collections.unmodifiableSet(new HashSet<>(List.of("b", "a"))) }))
			.isEqualTo("whole_[a, b]");
		assertThat(definition.lockKey(new Object[] { new HashMap<>(Map.of("b", Color.BLUE, "a", Color.RED)).values() }))
			.isEqualTo("whole_[RED, BLUE]");
	}

	/**
	 * A wrapper or a view of a {@code Set.of} or {@code Map.of} lists the elements in the
	 * order of the set or map behind it, salted per JVM, even elements hashed by their
	 * values: it was keyed by that order, which on another JVM is another one. Refused as
	 * {@code Set.of} is. A wrapper or view of a hash table of strings, ordered by their
	 * hash codes, is keyed as before.
	 */
	@Test
	void refusesAWrapperOrViewOfASetOrMapSaltedPerJvm() {
		LockDefinition definition = definition("whole", Object.class);
		Set<String> salted = Set.of("a", "b", "c");
		Map<String, String> saltedMap = Map.of("a", "x", "b", "y", "c", "z");
		String saltedValues = saltedMap.entrySet().stream().map(Map.Entry::getValue).toList().toString();
		Set<Color> saltedColors = Set.of(Color.RED, Color.BLUE);
		for (Map.Entry<Object, String> value : List.<Map.Entry<Object, String>>of(
				Map.entry(Collections.unmodifiableSet(salted), salted.toString()),
				Map.entry(Collections.unmodifiableCollection(salted), salted.toString()),
				Map.entry(Collections.synchronizedSet(salted), salted.toString()),
				Map.entry(Collections.checkedSet(salted, String.class), salted.toString()),
				Map.entry(Collections.unmodifiableMap(saltedMap), saltedMap.toString()),
				Map.entry(Collections.unmodifiableSet(saltedMap.keySet()), saltedMap.keySet().toString()),
				Map.entry(saltedMap.values(), saltedValues),
				Map.entry(Collections.unmodifiableSet(saltedColors), saltedColors.toString()))) {
			assertThat(value.getKey()).as("listed in the salted order behind it").hasToString(value.getValue());
			assertThatExceptionOfType(IllegalArgumentException.class).as(value.getKey().getClass().getName())
				.isThrownBy(() -> definition.lockKey(new Object[] { value.getKey() }))
				.withMessageContaining("field '#p0' is a " + value.getKey().getClass().getTypeName())
				.withMessageContaining("lists its elements in an order that differs between JVMs");
		}
		// Written alike on every JVM: keyed as before.
		assertThat(definition.lockKey(new Object[] { new Hashtable<>(Map.of("a", 1, "b", 2)).keySet() }))
			.isEqualTo("whole_[b, a]");
		assertThat(definition
			.lockKey(new Object[] { Collections.unmodifiableMap(new Hashtable<>(Map.of("a", 1, "b", 2))) }))
			.isEqualTo("whole_{b=2, a=1}");
	}

	/**
	 * A {@code Hashtable}'s key set orders enums by their identity hash codes: it was
	 * keyed when they happened to come in their declaration order on this JVM, and
	 * refused on a JVM where they did not. Two of these sizes that come so here (the key
	 * set lists the one put last first where both fall into one bucket) are now refused
	 * as a {@code Hashtable} itself is, on every JVM.
	 */
	@Test
	void refusesAHashtablesKeySetOfEnumsWhicheverOrderItListsThemIn() {
		LockDefinition definition = definition("whole", Object.class);
		Set<Size> inDeclarationOrder = null;
		for (Size first : Size.values()) {
			for (Size second : Size.values()) {
				Hashtable<Size, Integer> sizes = new Hashtable<>();
				sizes.put(second, 2);
				sizes.put(first, 1);
				if (first.compareTo(second) < 0 && List.copyOf(sizes.keySet()).equals(List.of(first, second))) {
					inDeclarationOrder = sizes.keySet();
				}
			}
		}
		assertThat(inDeclarationOrder).as("two sizes in declaration order in a Hashtable's key set").isNotNull();
		Object value = inDeclarationOrder;
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> definition.lockKey(new Object[] { value }))
			.withMessageContaining("field '#p0' is a " + value.getClass().getTypeName())
			.withMessageContaining("lists its elements in an order that differs between JVMs");
	}

	enum Size {

		XS, S, M, L, XL, XXL, XXXL, XXXXL

	}

	enum Color {

		RED, BLUE

	}

	/**
	 * A list writes each element by its {@code toString()}: an array in it writes its
	 * identity ({@code [[J@1b6d3586]}), and so does an object without its own
	 * {@code toString()} in a list or an array nested in the value.
	 */
	@Test
	void refusesAnIdentityTextNestedInTheValue() {
		LockDefinition definition = definition("whole", Object.class);
		Product product = new Product(7L, "pen");
		for (Object value : List.of(List.of(new long[] { 4 }), List.of(List.of(product)),
				new Object[] { List.of(product) }, new Object[] { new Object[] { product } },
				List.of("a", new String[] { "b" }))) {
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> definition.lockKey(new Object[] { value }))
				.withMessageContaining("field '#p0' holds a ")
				.withMessageContaining("nothing was locked");
		}
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> definition.lockKey(new Object[] { List.of(new long[] { 4 }) }))
			.withMessageContaining("field '#p0' holds a long[], whose toString() and hashCode() are Object's")
			.withMessageContaining("([J@1b6d3586)")
			.withMessageContaining("Hold a List there instead of the array");
		List<Object> itself = new java.util.ArrayList<>(List.of("a"));
		itself.add(itself);
		assertThat(definition.lockKey(new Object[] { itself })).isEqualTo("whole_[a, (this Collection)]");
		assertThat(definition.lockKey(new Object[] { new Object[] { List.of(3L), new long[] { 4 } } }))
			.isEqualTo("whole_[[3], [4]]");
	}

	/**
	 * A Spring AOP proxy (a scoped or otherwise advised bean) writes its target's text: a
	 * target without its own {@code toString()} writes its identity, though the proxy's
	 * class declares a {@code toString()}.
	 */
	@Test
	void refusesAProxyWhoseTargetWritesItsIdentityAndWritesOneWhoseTargetWritesItsValue() {
		LockDefinition definition = definition("whole", Object.class);
		ProxyFactory classProxy = new ProxyFactory(new Product(7L, "pen"));
		classProxy.setProxyTargetClass(true);
		ProxyFactory interfaceProxy = new ProxyFactory(new Counter());
		interfaceProxy.setInterfaces(java.util.function.IntSupplier.class);
		for (Object proxy : List.of(classProxy.getProxy(), interfaceProxy.getProxy())) {
			assertThat(proxy.toString()).as("the target's identity").contains("@");
			assertThatExceptionOfType(IllegalArgumentException.class)
				.isThrownBy(() -> definition.lockKey(new Object[] { proxy }))
				.withMessageContaining("field '#p0' is a ")
				.withMessageContaining("whose toString() and hashCode() are Object's");
		}
		ProxyFactory tagged = new ProxyFactory(new Tagged());
		tagged.setProxyTargetClass(true);
		assertThat(definition.lockKey(new Object[] { tagged.getProxy() })).isEqualTo("whole_tagged");
	}

	static class Tagged extends Counter {

		@Override
		public String toString() {
			return "tagged";
		}

	}

	static class Counter implements java.util.function.IntSupplier {

		@Override
		public int getAsInt() {
			return 1;
		}

	}

	@Test
	void writesValuesWhoseClassesWriteTheirOwnText() {
		LockDefinition definition = definition("whole", Object.class);
		assertThat(definition.lockKey(new Object[] { new Named("pen") })).isEqualTo("whole_Named[name=pen]");
		assertThat(definition.lockKey(new Object[] { Thread.State.NEW })).isEqualTo("whole_NEW");
		assertThat(definition.lockKey(new Object[] { new int[] { 1, 2 } })).isEqualTo("whole_[1, 2]");
		assertThat(definition.lockKey(new Object[] { List.of(new Named("a"), 3L) }))
			.isEqualTo("whole_[Named[name=a], 3]");
		assertThat(definition.lockKey(new Object[] { new Object[] { null, new long[] { 4 } } }))
			.isEqualTo("whole_[null, [4]]");
	}

	record Named(String name) {
	}

	/**
	 * An object whose class overrides {@code hashCode()} but not {@code toString()}
	 * writes {@code Class@hex(hashCode())}: by its values when its hash code is, as
	 * before; a warning names its class once.
	 */
	@Test
	void writesAValueWhoseTextIsItsHashCodeAndWarnsOnce(CapturedOutput output) {
		LockDefinition definition = definition("whole", Object.class);
		Hashed first = new Hashed(42);
		assertThat(definition.lockKey(new Object[] { first }))
			.isEqualTo(definition.lockKey(new Object[] { new Hashed(42) }))
			.isEqualTo("whole_" + Hashed.class.getName() + "@2a");
		assertThat(definition.lockKey(new Object[] { List.of(first) })).endsWith("@2a]");
		assertThat(LogLines.containing(output, "by Object.toString()")).singleElement()
			.asString()
			.contains("WARN", "Lock keys write " + Hashed.class.getName() + " by Object.toString()",
					"only if Hashed.hashCode() depends on its values alone");
	}

	static final class Hashed {

		private final int value;

		Hashed(int value) {
			this.value = value;
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Hashed hashed && hashed.value == this.value;
		}

		@Override
		public int hashCode() {
			return this.value;
		}

	}

	@Test
	void acceptsIndexedArgumentsAndFullSpel() {
		assertThat(lockKey("indexed", new Product(5L, "x"), "t")).isEqualTo("indexed_5_t");
		assertThat(lockKey("expression", new User(9L), "vip")).isEqualTo("expression_9-vip_VIP");
	}

	@Test
	void keyWithoutFieldsIsTheName() {
		assertThat(lockKey("plain")).isEqualTo("plain");
	}

	@Test
	void usesTheAnnotationsFailMessageOrTheDefault() {
		LockDefinition custom = definition("createOrder", Product.class, String.class);
		assertThat(custom.failure("k").getMessage()).isEqualTo("Too many buyers");
		assertThat(custom.failure("k").getCode()).isEqualTo("2201");
		assertThat(custom.failure("k").getLockKey()).isEqualTo("k");
		LockDefinition plain = definition("plain");
		assertThat(plain.failure("k").getMessage()).isEqualTo("Please do not submit twice");
		assertThat(plain.failure("k").getCode()).isEqualTo("2101");
	}

	@Test
	void failMessageWithoutAMessageFailsWithTheMethodAndTheFix() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "failMessageWithACodeAlone"))
			.withMessageContaining(BadService.class.getName() + ".failMessageWithACodeAlone")
			.withMessageContaining("failMsg \"|2101\" has no message before its code")
			.withMessageContaining("Please do not submit twice|2101");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "blankFailMessage"))
			.withMessageContaining("has no message");
	}

	@Test
	void notAnnotatedMethodHasNoDefinition() {
		Method method = ReflectionUtils.findMethod(Service.class, "notLocked");
		assertThat(this.resolver.definition(method, Service.class)).isNull();
	}

	@Test
	void pathNamingNoParameterFailsWithTheMethodAndThePath() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "unknownRoot", Product.class))
			.withMessageContaining(BadService.class.getName() + ".unknownRoot")
			.withMessageContaining("'prodcut.id'")
			.withMessageContaining("[product]");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "unknownVariable", Product.class))
			.withMessageContaining("'#item.id'");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "indexOutOfRange", Product.class))
			.withMessageContaining("'#p3'");
	}

	/**
	 * A field is evaluated against the arguments alone, with no root object: SpEL's
	 * {@code #root} is always null there, so {@code #root.args[0]} (as written for
	 * Spring's cache annotations) failed every call, and a bare {@code #root} keyed every
	 * call {@code k_null}.
	 */
	@Test
	void aFieldReadingTheRootObjectFailsAtStartupWithTheParameters() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "rootArguments", Product.class))
			.satisfies((ex) -> {
				assertThat(ex.getProblem()).isEqualTo("field '#root.args[0]' reads #root, which is null here: "
						+ "fields are evaluated against the arguments alone, without the root object of Spring's "
						+ "cache annotations (#root.args, #root.method, #root.target)");
				assertThat(ex.getFix()).isEqualTo("Name an argument by its parameter name [product] or its position "
						+ "(#p0, #p1, ...), such as #p0");
			});
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "bareRoot", Product.class))
			.withMessageContaining("field '#root' reads #root");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "thisAtTheTop", Product.class))
			.withMessageContaining("field '#this.id' reads #this");
		assertThat(lockKey("selectsWithThis", List.of(1L, 5L, 7L))).isEqualTo("select_[5, 7]");
	}

	/**
	 * Fields are evaluated without a bean resolver: a bean reference failed every call
	 * with SpEL's "No bean resolver registered in the context".
	 */
	@Test
	void aFieldReferringToABeanFailsAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "beanReference", Product.class))
			.satisfies((ex) -> {
				assertThat(ex.getProblem()).isEqualTo("field '@tenants.current() + #product.id' refers to the bean "
						+ "'tenants', and fields are evaluated against the arguments alone, without beans");
				assertThat(ex.getFix()).isEqualTo("Pass what the key needs as an argument of the method, or lock by "
						+ "hand with DistributeLock inside it");
			});
	}

	/**
	 * A generic service's method is checked for the bean's class, where its type
	 * variables are bound: a property of the bound type argument is readable, one it
	 * lacks is not.
	 */
	@Test
	void aPathThroughATypeVariableIsCheckedAgainstTheTypeTheBeansClassBindsItTo() throws Exception {
		Method handle = Handler.class.getDeclaredMethod("handle", Product.class);
		LockDefinition definition = this.resolver.definition(handle, SpecialHandler.class);
		assertThat(definition).isNotNull();
		assertThat(definition.lockKey(new Object[] { new SpecialProduct(7L, "pen", "blue") })).isEqualTo("handle_blue");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> this.resolver.definition(handle, Handler.class))
			.withMessageContaining("reads 'colour', which " + Product.class.getName());
	}

	@Test
	void aPathReadingAPropertyItsDeclaredTypeLacksFailsAtStartupWithTheProperties() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "misspeltProperty", Product.class))
			.withMessageContaining(BadService.class.getName() + ".misspeltProperty")
			.withMessageContaining("'product.idd' reads 'idd', which " + Product.class.getName() + " does not have")
			.withMessageContaining("[id, name]")
			.withMessageContaining("\"#product.idd\"");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "misspeltDeepInARecord", Order.class))
			.withMessageContaining("reads 'town', which " + Address.class.getName())
			.withMessageContaining("[city]");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "propertyOfAFinalValue", String.class))
			.withMessageContaining("reads 'lenght', which java.lang.String");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "misspeltThroughATypeArgument", Box.class))
			.withMessageContaining("reads 'idd', which " + Product.class.getName());
	}

	@Test
	void aPathIsLeftToTheCallWhereTheDeclaredTypeDoesNotFixTheProperties() {
		assertThat(lockKey("openTypes", new TaggedItem("t-9"), new SpecialProduct(3L, "pen", "red"),
				java.util.Map.of("sku", "A-1"), new Box<>(new Product(4L, "cup"))))
			.isEqualTo("open_t-9_red_A-1_4");
		assertThat(lockKey("subclassPropertyAsSpel", new SpecialProduct(3L, "pen", "red"))).isEqualTo("sub_red");
	}

	@Test
	void invalidSpelAndBadTimesFailAtDefinition() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "unparsable", Product.class))
			.withMessageContaining("not a valid SpEL expression");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "negativeWait"))
			.withMessageContaining("waitTimeMs");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "zeroLease"))
			.withMessageContaining("timeoutMs");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "keyPerElementWithoutFields", List.class))
			.withMessageContaining("keyPerElement is set but there are no fields");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "blankKey"))
			.withMessageContaining("key is blank");
	}

	@Test
	void blankFieldFailsAtDefinitionWithTheMethodAndItsPlace() {
		for (String method : List.of("emptyField", "blankField")) {
			assertThatExceptionOfType(InvalidLockableException.class)
				.isThrownBy(() -> definition(BadService.class, method, Product.class))
				.withMessageContaining(method)
				.withMessageContaining("fields[1] is blank")
				.withMessageContaining("Remove it, or name what to append");
		}
	}

	@Test
	void compilesEachMethodOnce() {
		LockDefinition first = definition("createOrder", Product.class, String.class);
		assertThat(definition("createOrder", Product.class, String.class)).isSameAs(first);
	}

	@Test
	void evaluationFailureNamesTheMethodAndTheField() {
		LockDefinition definition = definition("failing", Product.class);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> definition.lockKey(new Object[] { new Product(1L, "x") }))
			.withMessageContaining("failing")
			.withMessageContaining("#product.missing");
	}

	private String lockKey(String methodName, Object... arguments) {
		Class<?>[] types = java.util.Arrays.stream(arguments)
			.map((argument) -> (argument != null) ? argument.getClass() : String.class)
			.toArray(Class<?>[]::new);
		Method method = java.util.Arrays.stream(Service.class.getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(methodName))
			.findFirst()
			.orElseThrow();
		assertThat(types).hasSameSizeAs(method.getParameterTypes());
		return this.resolver.definition(method, Service.class).lockKey(arguments);
	}

	private LockDefinition definition(String methodName, Class<?>... types) {
		return definition(Service.class, methodName, types);
	}

	private LockDefinition definition(Class<?> type, String methodName, Class<?>... types) {
		Method method = ReflectionUtils.findMethod(type, methodName, types);
		assertThat(method).isNotNull();
		return this.resolver.definition(method, type);
	}

	@Test
	void refusesAFutureWhoseCompletionCannotBeFollowedAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "plainFuture"))
			.withMessageContaining(BadService.class.getName() + ".plainFuture")
			.withMessageContaining("whose completion cannot be followed")
			.withMessageContaining("Return a CompletableFuture or CompletionStage");
	}

	@Test
	void refusesAStageTypeTheLockCannotAnswerWithAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "ownFuture"))
			.withMessageContaining(BadService.class.getName() + ".ownFuture")
			.withMessageContaining("it returns OwnFuture, a CompletionStage of its own type")
			.withMessageContaining("Declare the method to return CompletableFuture or CompletionStage");
	}

	/**
	 * A stream's work runs as it is consumed, after the call: the lock protected only the
	 * building of its pipeline.
	 */
	@Test
	void refusesAStreamWhoseWorkRunsAfterTheCallAtStartupOrWhenAnObjectMethodReturnsOne() throws Exception {
		for (String methodName : List.of("stream", "intStream")) {
			assertThatExceptionOfType(InvalidLockableException.class)
				.isThrownBy(() -> definition(BadService.class, methodName))
				.withMessageContaining(BadService.class.getName() + "." + methodName)
				.withMessageContaining("whose work runs as it is consumed: after the call, out of the lock")
				.withMessageContaining("Collect the stream inside the method and return what it collects to");
		}
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> definition(BadService.class, "flow"))
			.withMessageContaining("it returns a Kotlin Flow, whose work runs as it is collected")
			.withMessageContaining("Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
		Method anyValue = BadService.class.getDeclaredMethod("anyValue");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> ReturnShape.checkAnyValue(anyValue, kotlinx.coroutines.flow.FlowKt.flowOf("a")))
			.withMessageContaining("returned a reactive type");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> ReturnShape.checkAnyValue(anyValue, java.util.stream.Stream.of("a")))
			.withMessageContaining("returned a stream")
			.withMessageContaining("Collect the stream inside the method");
	}

	/**
	 * A refused stream is never handed to the code that would have closed it: the stream
	 * of a file's lines, or of a query's cursor, kept its file or connection open.
	 */
	@Test
	void closesAStreamItRefuses() throws Exception {
		Method anyValue = BadService.class.getDeclaredMethod("anyValue");
		java.util.concurrent.atomic.AtomicInteger closed = new java.util.concurrent.atomic.AtomicInteger();
		java.util.stream.Stream<String> lines = java.util.stream.Stream.of("a").onClose(closed::incrementAndGet);
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> ReturnShape.checkAnyValue(anyValue, lines))
			.withMessageContaining("returned a stream");
		assertThat(closed).as("the refused stream, closed").hasValue(1);
		IllegalStateException closeFailure = new IllegalStateException("could not close");
		java.util.stream.IntStream failing = java.util.stream.IntStream.of(1).onClose(() -> {
			throw closeFailure;
		});
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> ReturnShape.checkAnyValue(anyValue, failing))
			.satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(closeFailure));
	}

	@Test
	void refusesAKotlinSuspendFunctionAtStartup() {
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> definition(BadService.class, "suspending", String.class,
					kotlin.coroutines.Continuation.class))
			.withMessageContaining(BadService.class.getName() + ".suspending")
			.withMessageContaining("it is a Kotlin suspend function, which is not supported")
			.withMessageContaining("Return a Mono or Flux from the method");
	}

	@Test
	void classifiesWhenTheLockIsHeldByTheReturnType() throws Exception {
		assertThat(ReturnShape.of(AbstractReactiveLockableTests.Work.class.getMethod("mono", String.class)).kind())
			.isEqualTo(ReturnShape.Kind.PUBLISHER);
		assertThat(ReturnShape.of(AbstractReactiveLockableTests.Work.class.getMethod("flux")).kind())
			.isEqualTo(ReturnShape.Kind.PUBLISHER);
		assertThat(ReturnShape.of(AbstractReactiveLockableTests.Work.class.getMethod("future")).kind())
			.isEqualTo(ReturnShape.Kind.COMPLETION_STAGE);
		assertThat(ReturnShape.of(Object.class.getMethod("toString")).kind()).isEqualTo(ReturnShape.Kind.BLOCKING);
	}

	static class Service {

		@Lockable(key = "named", fields = "root.id")
		void named(Product root) {
		}

		@Lockable(key = "select", fields = "#ids.?[#this > 2]")
		void selectsWithThis(List<Long> ids) {
		}

		@Lockable(key = "each", fields = "ids", keyPerElement = true)
		void each(List<Long> ids) {
		}

		@Lockable(key = "each", fields = "ids", keyPerElement = true)
		void eachOfArray(Long[] ids) {
		}

		@Lockable(key = "order.addOder", fields = { "product.id", "token" }, failMsg = "Too many buyers|2201")
		void createOrder(Product product, String token) {
		}

		@Lockable(key = "ship",
				fields = { "order.customer.address.city", "product.id", "product.colour", "product.name" })
		void ship(Order order, SpecialProduct product) {
		}

		@Lockable(key = "indexed", fields = { "#p0.id", "#a1" })
		void indexed(Product product, String token) {
		}

		@Lockable(key = "expression", fields = "#user.id + '-' + #type + '_' + #type.toUpperCase()")
		void expression(User user, String type) {
		}

		@Lockable(key = "plain")
		void plain() {
		}

		@Lockable(key = "optional", fields = { "id", "#other.orElse(null)" })
		void optional(Optional<Long> id, Optional<Long> other) {
		}

		@Lockable(key = "arrays", fields = { "ids", "#names", "list" })
		void arrays(long[] ids, String[] names, List<Long> list) {
		}

		@Lockable(key = "whole", fields = "#p0")
		void whole(Object value) {
		}

		@Lockable(key = "wholeEach", fields = "values", keyPerElement = true)
		void wholeEach(List<Object> values) {
		}

		@Lockable(key = "open", fields = { "item.tag", "thing.colour", "attributes.sku", "box.content.id" })
		void openTypes(Item item, Object thing, java.util.Map<String, String> attributes, Box<?> box) {
		}

		@Lockable(key = "sub", fields = "#product.colour")
		void subclassPropertyAsSpel(Product product) {
		}

		@Lockable(key = "failing", fields = "#product.missing")
		void failing(Product product) {
		}

		void notLocked() {
		}

	}

	static class Handler<T extends Product> {

		@Lockable(key = "handle", fields = "item.colour")
		void handle(T item) {
		}

	}

	static class SpecialHandler extends Handler<SpecialProduct> {

	}

	static class BadService {

		@Lockable(key = "codeOnly", failMsg = "|2101")
		void failMessageWithACodeAlone() {
		}

		@Lockable(key = "blank", failMsg = "  ")
		void blankFailMessage() {
		}

		@Lockable(key = "stock", keyPerElement = true)
		void keyPerElementWithoutFields(List<Long> productIds) {
		}

		@Lockable(key = "future")
		java.util.concurrent.Future<String> plainFuture() {
			return java.util.concurrent.CompletableFuture.completedFuture("done");
		}

		@Lockable(key = "own-future")
		OwnFuture ownFuture() {
			return new OwnFuture();
		}

		/** What a Kotlin {@code suspend fun work(id: String): String} compiles to. */
		@Lockable(key = "stream")
		java.util.stream.Stream<String> stream() {
			return java.util.stream.Stream.of("a");
		}

		@Lockable(key = "intStream")
		java.util.stream.IntStream intStream() {
			return java.util.stream.IntStream.of(1);
		}

		@Lockable(key = "flow")
		kotlinx.coroutines.flow.Flow<String> flow() {
			throw new UnsupportedOperationException("only its declared type is read");
		}

		@Lockable(key = "anyValue")
		Object anyValue() {
			return "a";
		}

		@Lockable(key = "suspending")
		Object suspending(String id, kotlin.coroutines.Continuation<? super String> continuation) {
			return "done";
		}

		@Lockable(key = "k", fields = "prodcut.id")
		void unknownRoot(Product product) {
		}

		@Lockable(key = "k", fields = "#root.args[0]")
		void rootArguments(Product product) {
		}

		@Lockable(key = "k", fields = "#root")
		void bareRoot(Product product) {
		}

		@Lockable(key = "k", fields = "#this.id")
		void thisAtTheTop(Product product) {
		}

		@Lockable(key = "k", fields = "@tenants.current() + #product.id")
		void beanReference(Product product) {
		}

		@Lockable(key = "k", fields = "product.idd")
		void misspeltProperty(Product product) {
		}

		@Lockable(key = "k", fields = "order.customer.address.town")
		void misspeltDeepInARecord(Order order) {
		}

		@Lockable(key = "k", fields = "token.lenght")
		void propertyOfAFinalValue(String token) {
		}

		@Lockable(key = "k", fields = "box.content.idd")
		void misspeltThroughATypeArgument(Box<Product> box) {
		}

		@Lockable(key = "k", fields = "#item.id")
		void unknownVariable(Product product) {
		}

		@Lockable(key = "k", fields = "#p3")
		void indexOutOfRange(Product product) {
		}

		@Lockable(key = "k", fields = "#product.id +")
		void unparsable(Product product) {
		}

		@Lockable(key = "k", fields = { "product.id", "" })
		void emptyField(Product product) {
		}

		@Lockable(key = "k", fields = { "product.id", "  " })
		void blankField(Product product) {
		}

		@Lockable(key = "k", waitTimeMs = -1)
		void negativeWait() {
		}

		@Lockable(key = "k", timeoutMs = 0)
		void zeroLease() {
		}

		@Lockable(key = " ")
		void blankKey() {
		}

	}

	public static class Product {

		private final Long id;

		public final String name;

		Product(Long id, String name) {
			this.id = id;
			this.name = name;
		}

		public Long getId() {
			return this.id;
		}

	}

	public static class SpecialProduct extends Product {

		private final String colour;

		SpecialProduct(Long id, String name, String colour) {
			super(id, name);
			this.colour = colour;
		}

		public String getColour() {
			return this.colour;
		}

	}

	public record Order(Customer customer) {

		public Customer getCustomer() {
			return this.customer;
		}

	}

	public record Customer(Address address) {

		public Address getAddress() {
			return this.address;
		}

	}

	public record Address(String city) {

		public String getCity() {
			return this.city;
		}

	}

	public record User(long id) {

		public long getId() {
			return this.id;
		}

	}

	public record Box<T>(T content) {

	}

	public interface Item {

	}

	public record TaggedItem(String tag) implements Item {

	}

	/** A stage type of an application's own, which the lock cannot make. */
	static final class OwnFuture extends java.util.concurrent.CompletableFuture<String> {

	}

}
