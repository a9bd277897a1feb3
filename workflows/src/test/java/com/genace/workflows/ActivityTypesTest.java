package com.genace.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import com.genace.workflows.registration.RegistrationActivities;
import com.genace.workflows.review.ReviewActivities;
import io.temporal.common.metadata.POJOActivityInterfaceMetadata;
import io.temporal.common.metadata.POJOActivityMethodMetadata;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The activity type names the SDK derives from the interfaces, as the workflow's histories hold
 * them: a type that changed name would leave a recorded history scheduling an activity no worker
 * runs.
 */
class ActivityTypesTest {

  @Test
  void registration_is_the_register_type() {
    assertThat(typesOf(RegistrationActivities.class)).containsExactly("Register");
  }

  @Test
  void the_review_steps_keep_their_types() {
    assertThat(typesOf(ReviewActivities.class))
        .containsExactlyInAnyOrder("OpenReview", "RecordResolution");
  }

  private static List<String> typesOf(Class<?> activityInterface) {
    return POJOActivityInterfaceMetadata.newInstance(activityInterface)
        .getMethodsMetadata()
        .stream()
        .map(POJOActivityMethodMetadata::getActivityTypeName)
        .toList();
  }
}
