package dev.ratelimit.spring.aop;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Method;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;

import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** A limited call as a Reactor publisher, for a type of Spring's registry, and back as the method's type. */
class ReactorCallAdapterTests {

	@Test
	@SuppressWarnings("unchecked")
	void theMethodRunsOnlyOnceTheDecisionAdmitsAndOncePerSubscription() {
		Calls calls = new Calls(Flux.just("a", "b"));
		ReturnType type = ReturnType.of(Flow.Publisher.class);
		Object limited = type.adapter()
			.fromPublisher(ReactorCallAdapter.after((held) -> Mono.defer(Mono::empty), (held) -> { }, calls, type));
		assertThat(limited).isInstanceOf(Flow.Publisher.class);
		assertThat(calls.made.get()).as("not before a subscription").isZero();
		Flux<Object> subscribed = JdkFlowAdapter.flowPublisherToFlux((Flow.Publisher<Object>) limited);
		assertThat(subscribed.collectList().block()).containsExactly("a", "b");
		assertThat(subscribed.collectList().block()).containsExactly("a", "b");
		assertThat(calls.made.get()).isEqualTo(2);
	}

	@Test
	void aDeniedCallNeverRunsTheMethodAndSignalsTheDenial() {
		Calls calls = new Calls(Mono.just("a"));
		ReturnType type = ReturnType.of(Mono.class);
		Mono<Object> limited = Mono.from(ReactorCallAdapter.after((held) -> Mono.error(new IllegalStateException("denied")),
				(held) -> { }, calls, type));
		assertThatIllegalStateException().isThrownBy(limited::block).withMessage("denied");
		assertThat(calls.made.get()).isZero();
	}

	@Test
	void aMethodThatReturnsNullIsEmptyAndOneThatThrowsIsItsError() {
		ReturnType type = ReturnType.of(Mono.class);
		assertThat(Mono.from(ReactorCallAdapter.proceed(new Calls(null), type)).block()).isNull();
		assertThatIllegalStateException()
			.isThrownBy(() -> Mono.from(ReactorCallAdapter.proceed(new Calls(new IllegalStateException("thrown")), type))
				.block())
			.withMessage("thrown");
	}

	/** The method's calls, counted; each returns {@code result}, or throws it when it is an exception. */
	private static final class Calls implements MethodInvocation {

		private final Object result;

		private final AtomicInteger made = new AtomicInteger();

		Calls(Object result) {
			this.result = result;
		}

		@Override
		public Object proceed() throws Throwable {
			this.made.incrementAndGet();
			if (this.result instanceof Throwable thrown) {
				throw thrown;
			}
			return (this.result instanceof Flux<?> flux) ? JdkFlowAdapter.publisherToFlowPublisher(flux)
					: this.result;
		}

		@Override
		public Method getMethod() {
			throw new UnsupportedOperationException();
		}

		@Override
		public Object[] getArguments() {
			return new Object[0];
		}

		@Override
		public Object getThis() {
			return this;
		}

		@Override
		public AccessibleObject getStaticPart() {
			throw new UnsupportedOperationException();
		}

	}

}
