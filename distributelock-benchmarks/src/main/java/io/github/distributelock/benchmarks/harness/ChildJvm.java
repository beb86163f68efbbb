package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.distributelock.benchmarks.library.Endpoints;

/**
 * Starts a class of this jar in its own JVM, with the run's endpoints, its output going
 * to a log file, and ends it if it outlives its time.
 */
final class ChildJvm {

	/** Extra options of every child JVM, for profiling a row. */
	static final String OPTIONS_PROPERTY = "benchmarks.child-jvm-options";

	private final Process process;

	private final Path log;

	private ChildJvm(Process process, Path log) {
		this.process = process;
		this.log = log;
	}

	static ChildJvm start(Class<?> main, Endpoints endpoints, Path log, List<String> args) throws IOException {
		List<String> command = new ArrayList<>();
		command.add(ProcessHandle.current().info().command().orElse("java"));
		command.add("-Xmx512m");
		command.addAll(extraOptions());
		command.addAll(List.of(endpoints.asJvmArgs()));
		command.add("-cp");
		command.add(System.getProperty("java.class.path"));
		command.add(main.getName());
		command.addAll(args);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		return new ChildJvm(process, log);
	}

	/**
	 * Runs the two JVMs of a hand-off run, the waiter started first, and waits for both,
	 * ending them if they outlive ten minutes.
	 * @param name the run's name, for the JVMs' log files
	 * @param argsOf the arguments of the JVM of a role, {@code waiter} or {@code holder}
	 */
	static void runWaiterAndHolder(Class<?> main, Endpoints endpoints, Path workDirectory, String name,
			Function<String, List<String>> argsOf) throws Exception {
		List<ChildJvm> children = new ArrayList<>();
		try {
			for (String role : List.of("waiter", "holder")) {
				children
					.add(start(main, endpoints, workDirectory.resolve(name + "-" + role + ".log"), argsOf.apply(role)));
			}
			for (ChildJvm child : children) {
				child.await(Duration.ofMinutes(10));
			}
		}
		finally {
			children.forEach(ChildJvm::destroy);
		}
	}

	/**
	 * Options for every child JVM, from the system property {@value #OPTIONS_PROPERTY}
	 * (split at spaces), to profile a row, e.g.
	 * {@code -XX:StartFlightRecording=filename=/tmp/child.jfr}; a child's own log names
	 * the JVM, and its pid tells the recordings apart ({@code %p} in the file name).
	 */
	private static List<String> extraOptions() {
		String options = System.getProperty(OPTIONS_PROPERTY, "").trim();
		return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
	}

	/**
	 * Waits for the JVM to exit, ending it after {@code timeout}.
	 * @param timeout the longest wait
	 * @throws Exception if it failed or had to be ended
	 */
	void await(Duration timeout) throws Exception {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			throw new IllegalStateException("Child JVM ran past " + timeout + "; see " + this.log);
		}
		if (this.process.exitValue() != 0) {
			throw new IllegalStateException("Child JVM exited with " + this.process.exitValue() + "; see " + this.log);
		}
	}

	void destroy() {
		if (this.process.isAlive()) {
			this.process.destroyForcibly();
		}
	}

}
