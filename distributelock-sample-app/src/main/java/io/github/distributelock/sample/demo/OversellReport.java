package io.github.distributelock.sample.demo;

/**
 * What one round of the oversell demo ended with.
 *
 * @param lockEnabled whether the distributed lock was on
 * @param initialStock the stock before the buyers came
 * @param stock the stock after they left
 * @param orders the orders placed
 * @param refusedByLock the buyers refused with a 409 because a lock was not taken in time
 * @param failed the buyers that got any other error, or no answer in time
 * @since 1.0.0
 */
public record OversellReport(boolean lockEnabled, int initialStock, int stock, long orders, int refusedByLock,
		int failed) {

	/**
	 * Whether more orders were placed than there was stock.
	 * @return whether the product was oversold
	 */
	public boolean oversold() {
		return this.orders > this.initialStock;
	}

	/**
	 * Whether the stock left and the orders placed add up to the initial stock.
	 * @return whether no decrement was lost
	 */
	public boolean consistent() {
		return this.stock + this.orders == this.initialStock;
	}

	/**
	 * One line for a person, such as {@code lock on: stock=0 orders=10 (oversold: no)}.
	 * @return the summary
	 */
	public String summary() {
		StringBuilder summary = new StringBuilder(
				(this.lockEnabled ? "lock on" : "lock off") + ": stock=" + this.stock + " orders=" + this.orders);
		if (oversold()) {
			summary.append(" (oversold: yes, ")
				.append(this.orders - this.initialStock)
				.append(" more orders than the ")
				.append(this.initialStock)
				.append(" in stock)");
		}
		else if (!consistent()) {
			summary.append(" (oversold: no, but stock + orders is ")
				.append(this.stock + this.orders)
				.append(", not ")
				.append(this.initialStock)
				.append(')');
		}
		else {
			summary.append(" (oversold: no)");
		}
		if (this.refusedByLock > 0 || this.failed > 0) {
			summary.append(" [")
				.append(this.refusedByLock)
				.append(" refused by the lock, ")
				.append(this.failed)
				.append(" failed]");
		}
		return summary.toString();
	}

}
