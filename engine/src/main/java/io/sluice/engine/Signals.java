package io.sluice.engine;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * Installs handlers for POSIX signals through the JDK's {@code sun.misc.Signal} (module jdk.unsupported, exported
 * on every JDK since 9), reached reflectively so the build needs no internal-API warning exemption. Returns false
 * where the JVM does not allow it (e.g. a signal it reserves).
 */
final class Signals
{
    private Signals()
    {
    }

    /**
     * @param name    signal name without {@code SIG}, e.g. {@code TERM}
     * @param handler what to run (on the JVM's signal dispatch thread)
     * @return whether the handler was installed
     */
    static boolean handle(final String name, final Runnable handler)
    {
        try
        {
            final Class<?> signalClass = Class.forName("sun.misc.Signal");
            final Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            final Constructor<?> ctor = signalClass.getConstructor(String.class);
            final Object signal = ctor.newInstance(name);
            final Object proxy = Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[]{handlerClass},
                (p, method, args) ->
                {
                    if ("handle".equals(method.getName()))
                    {
                        handler.run();
                        return null;
                    }
                    if ("toString".equals(method.getName()))
                    {
                        return "sluice signal handler for SIG" + name;
                    }
                    if ("hashCode".equals(method.getName()))
                    {
                        return System.identityHashCode(p);
                    }
                    if ("equals".equals(method.getName()))
                    {
                        return p == args[0];
                    }
                    return null;
                });
            final Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
            handle.invoke(null, signal, proxy);
            return true;
        }
        catch (final ReflectiveOperationException | RuntimeException e)
        {
            return false;
        }
    }
}
