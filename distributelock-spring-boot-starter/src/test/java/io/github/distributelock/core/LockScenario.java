package io.github.distributelock.core;

import io.github.distributelock.LockHandle;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jspecify.annotations.Nullable;

/**
 * {@link LockOperations} with no shutdown, where every outcome is told apart and each
 * thread also asks whether its last handle is still held.
 */
public class LockScenario extends LockOperations {

	public LockScenario() throws InterruptedException, ReflectiveOperationException {
	}

	@Operation
	public @Nullable Boolean isHeld(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key) {
		LockHandle handle = this.handles.peek(thread, key);
		return (handle != null) ? handle.isHeld() : null;
	}

}
