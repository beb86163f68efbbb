package io.github.distributelock.sample.webflux.web;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.sample.webflux.shop.SoldOutException;
import io.github.distributelock.sample.webflux.shop.UnknownProductException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the shop's failures, as the publishers of the controllers end with them, into
 * HTTP statuses with an {@link ApiError} body: a lock not taken in time is a 409 with the
 * code and message of the {@code @Lockable}'s {@code failMsg}.
 */
@RestControllerAdvice
class ShopExceptionHandler {

	/** The code of an order for a product without stock. */
	static final String SOLD_OUT = "3001";

	/** The code of a request for a product that does not exist. */
	static final String UNKNOWN_PRODUCT = "3002";

	private static final Log logger = LogFactory.getLog(ShopExceptionHandler.class);

	@ExceptionHandler
	ResponseEntity<ApiError> lockFailed(LockFailedException ex) {
		logger.debug("Lock " + ex.getLockKey() + " was not taken in time");
		return error(HttpStatus.CONFLICT, ex.getCode(), ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<ApiError> soldOut(SoldOutException ex) {
		return error(HttpStatus.CONFLICT, SOLD_OUT, ex.getMessage());
	}

	@ExceptionHandler
	ResponseEntity<ApiError> unknownProduct(UnknownProductException ex) {
		return error(HttpStatus.NOT_FOUND, UNKNOWN_PRODUCT, ex.getMessage());
	}

	private static ResponseEntity<ApiError> error(HttpStatus status, @Nullable String code, @Nullable String message) {
		return ResponseEntity.status(status)
			.body(new ApiError(code, (message != null) ? message : status.getReasonPhrase()));
	}

}
