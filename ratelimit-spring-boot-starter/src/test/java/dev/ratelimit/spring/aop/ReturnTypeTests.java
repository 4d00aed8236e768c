package dev.ratelimit.spring.aop;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.adapter.JdkFlowAdapter;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.ParallelFlux;

import org.springframework.core.ReactiveAdapterRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** The one place that tells the return types of limited methods apart, and what each may do. */
class ReturnTypeTests {

	@Test
	void reactorTypesAreDecidedAsOneValueOrManyWithinTheSubscribersContext() {
		assertThat(ReturnType.of(Mono.class)).satisfies((type) -> {
			assertThat(type.kind()).isEqualTo(ReturnType.Kind.SINGLE);
			assertThat(type.readsSubscriberContext()).isTrue();
			assertThat(type.outcomeOnReturn()).isTrue();
		});
		for (Class<?> many : new Class<?>[] { Flux.class, Publisher.class }) {
			assertThat(ReturnType.of(many)).satisfies((type) -> {
				assertThat(type.kind()).isEqualTo(ReturnType.Kind.MULTI);
				assertThat(type.readsSubscriberContext()).isTrue();
				assertThat(type.outcomeOnReturn()).as("many values are no one outcome").isFalse();
			});
		}
	}

	@Test
	void stagesAndFuturesAreDecidedWithADelayedStageNotThroughTheRegistry() {
		for (Class<?> stage : new Class<?>[] { CompletionStage.class, CompletableFuture.class, Future.class }) {
			assertThat(ReturnType.of(stage)).satisfies((type) -> {
				assertThat(type.kind()).as(stage.getSimpleName()).isEqualTo(ReturnType.Kind.STAGE);
				assertThat(type.reactive()).isFalse();
				assertThat(type.outcomeOnReturn()).isFalse();
			});
		}
	}

	@Test
	void anotherReactiveTypeOfTheRegistryIsDecidedAsAPublisherOutsideAnyContext() {
		ReturnType type = ReturnType.of(Flow.Publisher.class);
		assertThat(type.kind()).isEqualTo(ReturnType.Kind.MULTI);
		// the JDK's subscriber carries no Reactor context: on WebFlux no request could be read from it
		assertThat(type.readsSubscriberContext()).isFalse();
		Object made = type.adapter().fromPublisher(Flux.just("a", "b"));
		assertThat(made).isInstanceOf(Flow.Publisher.class);
		Flux<String> values = JdkFlowAdapter.flowPublisherToFlux((Flow.Publisher<?>) made).map(String::valueOf);
		assertThat(values.collectList().block()).containsExactly("a", "b");
	}

	@Test
	void typesWhoseResultTheStarterCannotMakeAreValuesWhoseOutcomeComesLater() {
		// the registry would adapt them as their supertypes (Publisher, CompletionStage), which they are not
		for (Class<?> later : new Class<?>[] { ParallelFlux.class, FutureTask.class, OwnStage.class }) {
			assertThat(ReturnType.of(later)).satisfies((type) -> {
				assertThat(type.kind()).as(later.getSimpleName()).isEqualTo(ReturnType.Kind.VALUE);
				assertThat(type.outcomeOnReturn()).isFalse();
			});
		}
	}

	@Test
	void plainValuesAreDecidedOnTheCallingThread() {
		for (Class<?> value : new Class<?>[] { String.class, Object.class, void.class, int.class }) {
			assertThat(ReturnType.of(value)).satisfies((type) -> {
				assertThat(type.kind()).as(value.getSimpleName()).isEqualTo(ReturnType.Kind.VALUE);
				assertThat(type.outcomeOnReturn()).isTrue();
			});
		}
	}

	@Test
	void aTypeThatIsNotReactiveHasNoAdapter() {
		assertThatIllegalStateException().isThrownBy(() -> ReturnType.of(CompletableFuture.class).adapter())
			.withMessage("CompletableFuture is not a reactive type");
	}

	@Test
	void withoutReactorNoTypeIsReactiveAndStagesStillAre() throws Exception {
		// the starter's classes and spring-core only: no Reactor, no Reactive Streams
		URL[] path = { location(ReturnType.class), location(ReactiveAdapterRegistry.class),
				location(LogFactory.class) };
		try (URLClassLoader loader = new URLClassLoader(path, ClassLoader.getPlatformClassLoader())) {
			assertThatExceptionOfType(ClassNotFoundException.class)
				.isThrownBy(() -> Class.forName("reactor.core.publisher.Mono", false, loader));
			Method of = Class.forName(ReturnType.class.getName(), true, loader).getMethod("of", Class.class);
			assertThat(of.invoke(null, CompletableFuture.class)).hasToString("STAGE CompletableFuture");
			assertThat(of.invoke(null, Flow.Publisher.class)).hasToString("VALUE Publisher");
			assertThat(of.invoke(null, String.class)).hasToString("VALUE String");
		}
	}

	private static URL location(Class<?> type) {
		return type.getProtectionDomain().getCodeSource().getLocation();
	}

	/** A stage of the application's own class. */
	abstract static class OwnStage<T> extends CompletableFuture<T> {

	}

}
