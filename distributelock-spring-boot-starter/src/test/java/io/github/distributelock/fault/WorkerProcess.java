package io.github.distributelock.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link LockWorker} running in its own JVM, which a test can talk to, kill with
 * SIGKILL, or pause with SIGSTOP. Closing it kills it, so a failing test leaves nothing
 * running.
 */
final class WorkerProcess implements AutoCloseable {

	/**
	 * Marks the lines of the worker's protocol among whatever else it prints (logging).
	 */
	static final String MARK = "@worker ";

	private final Process process;

	private final BlockingQueue<String> output = new LinkedBlockingQueue<>();

	private final Writer input;

	private final Thread reader;

	private WorkerProcess(Process process) {
		this.process = process;
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		this.reader = new Thread(this::readOutput, "worker-" + process.pid() + "-output");
		this.reader.setDaemon(true);
		this.reader.start();
	}

	static WorkerProcess start(Path logDirectory, String name, List<String> options) {
		return start(logDirectory, name, LockWorker.class, options);
	}

	/**
	 * Starts {@code mainClass} as the worker, with {@code name=<name>} and the options.
	 */
	static WorkerProcess start(Path logDirectory, String name, Class<?> mainClass, List<String> options) {
		String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx256m", "-XX:+UseSerialGC", "-cp", classpath,
				mainClass.getName(), "name=" + name));
		command.addAll(options);
		try {
			Process process = new ProcessBuilder(command).redirectError(logDirectory.resolve(name + ".err").toFile())
				.start();
			return new WorkerProcess(process);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void readOutput() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				if (line.startsWith(MARK)) {
					this.output.add(line.substring(MARK.length()));
				}
			}
		}
		catch (IOException ex) {
			this.output.add("OUTPUT_FAILED " + ex.getMessage());
		}
	}

	/** The next line the worker prints, failing if none comes within {@code timeout}. */
	String nextLine(Duration timeout) throws InterruptedException {
		String line = this.output.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
		if (line == null) {
			throw new AssertionError("Worker " + this.process.pid() + " printed nothing within " + timeout + " (alive: "
					+ this.process.isAlive() + ")");
		}
		return line;
	}

	/** The lines the worker printed and the test has not taken yet, without waiting. */
	List<String> takeLines() {
		List<String> lines = new ArrayList<>();
		this.output.drainTo(lines);
		return lines;
	}

	/**
	 * The lines the worker printed and the test has not taken yet, once the worker has
	 * ended and its output has been read to the end.
	 */
	List<String> remainingLines(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		if (!this.process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
			throw new AssertionError("Worker " + this.process.pid() + " did not end within " + timeout);
		}
		this.reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
		if (this.reader.isAlive()) {
			throw new AssertionError("The output of worker " + this.process.pid() + " did not end within " + timeout);
		}
		List<String> lines = new ArrayList<>();
		this.output.drainTo(lines);
		return lines;
	}

	void send(String line) throws IOException {
		this.input.write(line + "\n");
		this.input.flush();
	}

	long pid() {
		return this.process.pid();
	}

	void kill() {
		this.process.destroyForcibly();
	}

	void pause() throws IOException, InterruptedException {
		signal("-STOP");
	}

	void resume() throws IOException, InterruptedException {
		signal("-CONT");
	}

	private void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", signal, Long.toString(this.process.pid())).start();
		if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IllegalStateException("kill " + signal + " " + this.process.pid() + " failed");
		}
	}

	/** Waits for the worker to exit by itself and returns its exit code. */
	int awaitExit(Duration timeout) throws InterruptedException {
		if (!this.process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
			throw new AssertionError("Worker " + this.process.pid() + " did not finish within " + timeout
					+ "; its threads:\n" + threadDump());
		}
		return this.process.exitValue();
	}

	/** The worker's threads, to show where it hangs, or why they could not be read. */
	private String threadDump() throws InterruptedException {
		Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
		try {
			Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(this.process.pid()), "Thread.print")
				.redirectErrorStream(true)
				.start();
			byte[] output = dump.getInputStream().readAllBytes();
			if (!dump.waitFor(30, TimeUnit.SECONDS)) {
				dump.destroyForcibly();
			}
			return new String(output, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(" + jcmd + " failed: " + ex + ")";
		}
	}

	@Override
	public void close() throws InterruptedException {
		if (this.process.isAlive()) {
			// A paused process must be resumed to die promptly on some systems.
			this.process.destroyForcibly();
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
	}

}
